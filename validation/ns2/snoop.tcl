# ns-2.35 mirror of dupack's Snoop scenario (scenarios/irw-snoop.toml;
# validation/s5_snoop.py), for validation/run.py.
#
#   ns snoop.tcl ll=LL/LLSnoop loss=0.05 seed=3 trace=/tmp/s5.tr
#
#   fh --wired: wired_rate, wired_delay-- bs ==wireless LAN: wl_rate, wl_delay== mh
#
# One greedy Reno flow fh -> mh. The wireless hop is an ns-2 LAN (make-lan)
# of two members, because LL/LLSnoop is a link layer and only a LAN gives a
# node a link layer: the mobile joins with plain LL, the base station with
# `ll` (LL/LLSnoop for Snoop, LL for the control run). Every data packet
# the mobile receives is lost with probability `loss` (a Bernoulli
# ErrorModel spliced between the mobile's MAC and LL: only the base station
# sends to the mobile, and it sends only data); ACKs are never lost.
#
# Output on stdout:
#   NODES fh=.. bs=.. mh=.. lan=..        (the node ids the trace uses)
#   FLOW 0 ndatapack=.. nackpack=.. nrexmit=.. nrexmitpack=.. ncwndcuts=.. necn=.. sink_bytes=.. ack=..
#   END <time>
# and the packet trace in `trace` (required). ns-2's Snoop keeps no
# counters of its own: validation/s5_snoop.py counts its local
# retransmissions and suppressed duplicate ACKs from the trace records of
# the LAN interfaces (s5_snoop.lan_counts).

array set opt {
    ll LL mac Mac mac_hdr 64 loss 0.0 seed 1 duration 100
    wired_rate 10e6 wired_delay 0.020 wired_queue 100
    wl_rate 2e6 wl_delay 0.010 wl_queue 50
    mss 1000 window 32 iw 1 tick 0.001 minrto 1.0 initrto 1.0 maxrto 60.0
    snoop_tick 0.1 snoop_srtt 0.1 snoop_rttvar 0.25
    trace ""
}
source [file join [file dirname [info script]] mirror.tcl]
dupack_args opt snoop.tcl $argv
if {$opt(trace) eq ""} {
    puts stderr "snoop.tcl: trace=FILE is required (the Snoop counts come from it)"
    exit 2
}

dupack_mirror $opt(mss) $opt(window) $opt(iw) 3 $opt(tick) $opt(minrto) $opt(initrto) $opt(maxrto) 3

# The local timer's floor and its estimator's initial values (ns-2.35's
# defaults are the ones passed by validation/s5_snoop.py: snoopTick_ 0.1,
# srtt_ 0.1, rttvar_ 0.25).
Snoop set snoopTick_ $opt(snoop_tick)
Snoop set srtt_ $opt(snoop_srtt)
Snoop set rttvar_ $opt(snoop_rttvar)
LL/LLSnoop set snoopTick_ $opt(snoop_tick)

global defaultRNG
$defaultRNG seed [expr {$opt(seed) * 104729 + 17}]

LanRouter set debug_ 0   ;# unset in ns-2.35's defaults: silence the warning
set ns [new Simulator]
# Before the LAN is made: LanIface traces its interfaces only under trace-all.
set tf [open $opt(trace) w]
$ns trace-all $tf

set fh [$ns node]
set bs [$ns node]
set mh [$ns node]
$ns duplex-link $fh $bs $opt(wired_rate) $opt(wired_delay) DropTail
# dupack's limit counts waiting packets; ns-2's DropTail holds limit - 1.
$ns queue-limit $fh $bs [expr {$opt(wired_queue) + 1}]
$ns queue-limit $bs $fh [expr {$opt(wired_queue) + 1}]

# ns-2's base Mac (no contention: with one sender per direction the LAN is
# a full-duplex link, like dupack's) differs from a point-to-point link in
# two ways, both corrected here:
# - it occupies the transmitter for (size + mac_hdr) bytes at the LAN's
#   bit rate (Mac::txtime): the LAN runs mac_hdr/(mss + 40) faster, so a
#   data packet occupies it for dupack's (mss + 40)·8/wl_rate;
# - the receiver gets the packet when its transmission starts, not when it
#   ends, while a member's LL delays it by its delay_ on the way down
#   (before the interface queue) and again on the way up: each LL's delay
#   is a quarter of dupack's round trip over the hop, two propagation
#   delays plus one data packet's and one ACK's serialisation.
set lan_rate [expr {$opt(wl_rate) * ($opt(mss) + 40 + $opt(mac_hdr)) / double($opt(mss) + 40)}]
set ser [expr {($opt(mss) + 40 + 40) * 8.0 / $opt(wl_rate)}]
set ll_delay [expr {(2 * $opt(wl_delay) + $ser) / 4.0}]
set lan [$ns make-lan [list $mh] $lan_rate $ll_delay LL Queue/DropTail $opt(mac) Channel]
$lan addNode [list $bs] $lan_rate $ll_delay $opt(ll) Queue/DropTail $opt(mac)
foreach n [list $bs $mh] {
    set iface($n) [$lan set lanIface_($n)]
    [$iface($n) set ifq_] set limit_ [expr {$opt(wl_queue) + 1}]
    # The Mac times frames with its own bandwidth_ (default 2Mb), not the LAN's.
    [$iface($n) set mac_] set bandwidth_ $lan_rate
}

if {$opt(loss) > 0} {
    set rv [dupack_uniform $opt(seed)]
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $opt(loss)
    $em ranvar $rv
    $em drop-target [new Agent/Null]
    # Between the mobile's MAC and LL on reception: a lost packet used its
    # air time. (LanIface's add-receive-filter needs a Mac with `target`,
    # which the base Mac lacks; this is the same splice.)
    $em target [$iface($mh) set ll_]
    [$iface($mh) set mac_] up-target $em
}

set tcp [new Agent/TCP/Reno]
set snk [new Agent/TCPSink]
$ns attach-agent $fh $tcp
$ns attach-agent $mh $snk
$ns connect $tcp $snk
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"

proc finish {} {
    global ns tcp snk tf
    puts [format "FLOW 0 ndatapack=%d nackpack=%d nrexmit=%d nrexmitpack=%d ncwndcuts=%d necn=%d sink_bytes=%d ack=%d" \
        [$tcp set ndatapack_] [$tcp set nackpack_] [$tcp set nrexmit_] [$tcp set nrexmitpack_] \
        [$tcp set ncwndcuts_] [$tcp set necnresponses_] [$snk set bytes_] [$tcp set ack_]]
    $ns flush-trace
    close $tf
    puts "END [$ns now]"
    exit 0
}
# The node ids the trace names (the LAN is a node of its own).
puts "NODES fh=[$fh id] bs=[$bs id] mh=[$mh id] lan=[$lan id]"
$ns at $opt(duration) "finish"
$ns run
