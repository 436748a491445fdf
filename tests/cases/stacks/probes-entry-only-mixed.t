# Entry-only and return probes mixed (probes-partial with work probed at its entry only): work's calls are instants one level inside the outer that is running.
--- input
# mt: entry-only work
          helper 12568/12568 [000] 11857.233525338:         probe_helper:outer: (562cf273f154)     562cf273f154 outer+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233538450:          probe_helper:work: (562cf273f129)     562cf273f129 work+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233556540:          probe_helper:work: (562cf273f129)     562cf273f129 work+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233565516: probe_helper:outer__return: (562cf273f154 <- 562cf273f167)     562cf273f167 main+0xd (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233566981:         probe_helper:outer: (562cf273f154)     562cf273f154 outer+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233568504:          probe_helper:work: (562cf273f129)     562cf273f129 work+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233577372:          probe_helper:work: (562cf273f129)     562cf273f129 work+0x0 (/opt/demo/helper)
          helper 12568/12568 [000] 11857.233585190: probe_helper:outer__return: (562cf273f154 <- 562cf273f167)     562cf273f167 main+0xd (/opt/demo/helper)
--- expect
SPAN start=11857.233538450 end=11857.233538450 tid=12568 depth=2 kind=function flags=- address=0x562cf273f129 name="work"
SPAN start=11857.233556540 end=11857.233556540 tid=12568 depth=2 kind=function flags=- address=0x562cf273f129 name="work"
SPAN start=11857.233568504 end=11857.233568504 tid=12568 depth=2 kind=function flags=- address=0x562cf273f129 name="work"
SPAN start=11857.233577372 end=11857.233577372 tid=12568 depth=2 kind=function flags=- address=0x562cf273f129 name="work"
SPAN start=11857.233566981 end=11857.233585190 tid=12568 depth=1 kind=function flags=- address=0x562cf273f154 name="outer"
SPAN start=11857.233525338 end=11857.233565516 tid=12568 depth=1 kind=function flags=- address=0x562cf273f154 name="outer"
