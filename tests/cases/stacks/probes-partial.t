# Partial probing (uprobe-rec --functions '^(work|outer)$' on a program where outer calls helper, not probed, which calls work twice; path shortened): work's returns land in helper, which the probes do not see, so they end work and nothing else; each outer ends at its own return and holds its two works; no helper (or main, where outer returns) is inferred.
--- input
          helper 12568/12568 [000] 11857.233525338:         probe_helper:outer: (562cf273f154)     562cf273f154 outer+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233538450:          probe_helper:work: (562cf273f129)     562cf273f129 work+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233554690:  probe_helper:work__return: (562cf273f129 <- 562cf273f14a)     562cf273f14a helper+0x8 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233556540:          probe_helper:work: (562cf273f129)     562cf273f129 work+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233564478:  probe_helper:work__return: (562cf273f129 <- 562cf273f152)     562cf273f152 helper+0x10 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233565516: probe_helper:outer__return: (562cf273f154 <- 562cf273f167)     562cf273f167 main+0xd (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233566981:         probe_helper:outer: (562cf273f154)     562cf273f154 outer+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233568504:          probe_helper:work: (562cf273f129)     562cf273f129 work+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233576085:  probe_helper:work__return: (562cf273f129 <- 562cf273f14a)     562cf273f14a helper+0x8 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233577372:          probe_helper:work: (562cf273f129)     562cf273f129 work+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233584465:  probe_helper:work__return: (562cf273f129 <- 562cf273f152)     562cf273f152 helper+0x10 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233585190: probe_helper:outer__return: (562cf273f154 <- 562cf273f167)     562cf273f167 main+0xd (/opt/demo/helper)
--- expect
SPAN start=11857.233538450 end=11857.233554690 tid=12568 depth=2 kind=function flags=- address=0x562cf273f129 name="work"
SPAN start=11857.233556540 end=11857.233564478 tid=12568 depth=2 kind=function flags=- address=0x562cf273f129 name="work"
SPAN start=11857.233568504 end=11857.233576085 tid=12568 depth=2 kind=function flags=- address=0x562cf273f129 name="work"
SPAN start=11857.233577372 end=11857.233584465 tid=12568 depth=2 kind=function flags=- address=0x562cf273f129 name="work"
SPAN start=11857.233566981 end=11857.233585190 tid=12568 depth=1 kind=function flags=- address=0x562cf273f154 name="outer"
SPAN start=11857.233525338 end=11857.233565516 tid=12568 depth=1 kind=function flags=- address=0x562cf273f154 name="outer"
