# ns-2.35 mirror of the Fall & Floyd 1996 scenario of dupack
# (crates/dupack-sim/tests/common: fall_floyd), for validation/run.py.
#
#   ns fall_floyd.tcl variant=reno drops=41,43 trace=/tmp/ff.tr vars=/tmp/ff.vars
#
# S1 --8 Mbps, 0.1 ms-- R1 --0.8 Mbps, 100 ms-- K1; one transfer of
# `packets` segments of `mss` bytes; receiver window `window` segments; the
# listed data packets (1-based, counting retransmissions, dupack's droplist
# convention) are lost on the R1 -> K1 direction after crossing it.
#
# Outputs: `trace` is ns-2's packet trace of every link (trace-all); `vars`
# is the agent's variable trace of nrexmit_ (timeouts) and ncwndcuts_
# (window cuts: fast retransmits and timeouts), from which validation/run.py
# tells the two apart.

array set opt {
    variant reno drops "" packets 150 mss 1000 window 20 iw 1 queue 100
    access_rate 8e6 access_delay 0.0001 bneck_rate 0.8e6 bneck_delay 0.1
    tick 0.001 minrto 1.0 initrto 1.0 maxrto 60.0 sackblocks 3 duration 10
    trace "" vars "" dropfile "" lt 0
}
source [file join [file dirname [info script]] mirror.tcl]
dupack_args opt fall_floyd.tcl $argv

# The configuration mirror (docs/validation.md lists the pairs).
dupack_mirror $opt(mss) $opt(window) $opt(iw) 3 $opt(tick) $opt(minrto) $opt(initrto) $opt(maxrto) $opt(sackblocks)
# lt=1: limited transmit (RFC 3042), dupack's `+lt`: ns-2's singledup_.
if {$opt(lt)} {
    Agent/TCP set singledup_ 1
}

set ns [new Simulator]
if {$opt(trace) ne ""} {
    set tf [open $opt(trace) w]
    $ns trace-all $tf
}

set s1 [$ns node]
set r1 [$ns node]
set k1 [$ns node]
$ns duplex-link $s1 $r1 $opt(access_rate) $opt(access_delay) DropTail
$ns duplex-link $r1 $k1 $opt(bneck_rate) $opt(bneck_delay) DropTail
# dupack's limit counts waiting packets; ns-2's DropTail holds limit - 1.
foreach {a b} [list $s1 $r1 $r1 $s1 $r1 $k1 $k1 $r1] {
    $ns queue-limit $a $b [expr {$opt(queue) + 1}]
}

if {$opt(dropfile) ne ""} {
    # The same comma-separated list, from a file (long lists).
    set fd [open $opt(dropfile) r]
    set opt(drops) [string trim [read $fd]]
    close $fd
}
if {$opt(drops) ne ""} {
    set em [new ErrorModel/List]
    $em unit pkt
    # ErrorModel/List counts from 0; dupack's droplist from 1.
    set l {}
    foreach d [split $opt(drops) ,] { lappend l [expr {$d - 1}] }
    $em droplist $l
    $em drop-target [new Agent/Null]
    # After the link, as dupack's error models: a lost packet has used its
    # transmission time. Only data packets cross R1 -> K1.
    $ns link-lossmodel $em $r1 $k1
}

switch -- $opt(variant) {
    tahoe   { set tcpclass Agent/TCP;         set sinkclass Agent/TCPSink }
    reno    { set tcpclass Agent/TCP/Reno;    set sinkclass Agent/TCPSink }
    newreno { set tcpclass Agent/TCP/Newreno; set sinkclass Agent/TCPSink }
    sack    { set tcpclass Agent/TCP/Sack1;   set sinkclass Agent/TCPSink/Sack1 }
    fack    { set tcpclass Agent/TCP/Fack;    set sinkclass Agent/TCPSink/Sack1 }
    default { puts stderr "fall_floyd.tcl: unknown variant '$opt(variant)'"; exit 2 }
}
set tcp [new $tcpclass]
set snk [new $sinkclass]
$ns attach-agent $s1 $tcp
$ns attach-agent $k1 $snk
$ns connect $tcp $snk
if {$opt(vars) ne ""} {
    set vf [open $opt(vars) w]
    $tcp attach $vf
    $tcp trace nrexmit_
    $tcp trace ncwndcuts_
    $tcp trace cwnd_
    $tcp trace ssthresh_
}
# ns-2 calls the agent's `done` when the whole transfer is acknowledged.
# The counters are read there too: an idle sender's later window cuts
# (`ncwndcuts_`) would otherwise count in the END line's.
$tcp proc done {} {
    global ns tcp
    puts [format "DONE t=%.9f nrexmit=%d nrexmitpack=%d ncwndcuts=%d" [$ns now] \
        [$tcp set nrexmit_] [$tcp set nrexmitpack_] [$tcp set ncwndcuts_]]
}
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp produce $opt(packets)"

proc finish {} {
    global ns tcp snk
    $ns flush-trace
    puts [format "END ndatapack=%d nrexmit=%d nrexmitpack=%d ncwndcuts=%d ack=%d sink_bytes=%d" \
        [$tcp set ndatapack_] [$tcp set nrexmit_] [$tcp set nrexmitpack_] [$tcp set ncwndcuts_] \
        [$tcp set ack_] [$snk set bytes_]]
    exit 0
}
$ns at $opt(duration) "finish"
$ns run
