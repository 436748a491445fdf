# Uprobe samples of perf probe events (entry probes and __return probes) become calls and returns. A return ends the returning function's frame and tells nothing else: outer's return to main+0x5 reveals no main (main is not probed). A __return whose entry was never seen (called before the trace began) makes that function a frame from the thread's first event, flagged INFERRED, one level out from all before it.
--- input
          target 10978/10978 [001]   487.666290387:         probe_target:outer: (55a8696c0270)     55a8696c0270 outer+0x0 (/opt/demo/target)
          target 10978/10978 [001]   487.666290400:         probe_target:work: (55a8696c0260)     55a8696c0260 work+0x0 (/opt/demo/target)
          target 10978/10978 [001]   487.666382261: probe_target:work__return: (55a8696c0260 <- 55a8696c0275)     55a8696c0275 outer+0x5 (/opt/demo/target)
          target 10978/10978 [001]   487.666390000: probe_target:outer__return: (55a8696c0270 <- 55a8696c0105)     55a8696c0105 main+0x5 (/opt/demo/target)
          target 10978/10978 [001]   487.666400000: probe_target:work__return: (55a8696c0260 <- 55a8696c0115)     55a8696c0115 main+0x15 (/opt/demo/target)
--- expect
SPAN start=487.666290400 end=487.666382261 tid=10978 depth=2 kind=function flags=- address=0x55a8696c0260 name="work"
SPAN start=487.666290387 end=487.666400000 tid=10978 depth=0 kind=function flags=INFERRED address=0x55a8696c0260 name="work"
SPAN start=487.666290387 end=487.666390000 tid=10978 depth=1 kind=function flags=- address=0x55a8696c0270 name="outer"
