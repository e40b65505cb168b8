# ns-2.35 mirror of the dupack benchmark scenarios (bench/scenarios/*.toml).
#
#   ns tcp_bench.tcl key=value ...
#
# bench/run.py reads a scenario TOML, applies its overrides and passes the
# resulting values here, so both simulators run from the same numbers.
# Rates are in bit/s, delays and times in seconds, queue limits in packets
# *waiting* (dupack's convention; ns-2's DropTail counts one more, see
# below), window in packets, loss as a per-packet probability.
#
# topo=dumbbell: n senders s(i) -- access link -- router -- bottleneck -- sink,
#   loss on the access links' sender->router direction.
# topo=link: one sender -- one link -- one receiver, loss on the data direction.
#
# routing=static (ns-2's default) computes every node's routes to every other
# node before the run: all pairs, whose time and memory grow with the square
# of the nodes and more (1000 senders: 9 s of set-up; 10,000: over 9 GB and
# still computing after five minutes). routing=manual gives the same routes
# explicitly (`rtproto Manual`): a default route from each sender and from
# the sink to the router, and from the router one route to each node next to
# it. The packets take the same paths either way.
#
# At the end one line per flow is printed:
#   FLOW <i> ndatapack=.. nackpack=.. nrexmit=.. nrexmitpack=.. ncwndcuts=.. sink_bytes=.. ack=..
# then "ROUTES routing=<static|manual> explicit=<routes given by route>" and a
# last line "END <simulated seconds>".

array set opt {
    topo dumbbell n 10 variant newreno duration 200 seed 1
    access_rate 1e6 access_delay 0.010 access_q 1000
    bneck_rate 3e6 bneck_delay 0.020 bneck_q 150
    loss 0.0 mss 1000 window 64 iw 1 dupthresh 3
    tick 0.001 minrto 1.0 initrto 1.0 maxrto 60.0 sackblocks 3
    maxcwnd 0 bneck_kind droptail red_min 5 red_max 15 red_maxp 0.1 red_wq 0.002
    red_gentle 0 red_ecn 0 red_mean_pkt 1000 qtrace "" overhead 0 routing static
}
source [file join [file dirname [info script]] .. .. validation ns2 mirror.tcl]
dupack_args opt tcp_bench.tcl $argv

# --- TCP configuration, as class defaults so every agent gets them --------
# One mirror for the benchmark and the validation suite (the reasons for
# each setting are there).
dupack_mirror $opt(mss) $opt(window) $opt(iw) $opt(dupthresh) $opt(tick) $opt(minrto) $opt(initrto) $opt(maxrto) $opt(sackblocks)

set ns [new Simulator]
switch -- $opt(routing) {
    static {}
    manual { $ns rtproto Manual }
    default { puts stderr "tcp_bench.tcl: unknown routing '$opt(routing)' (static or manual)"; exit 2 }
}
# With routing=manual: the route from `from` to the node next to it, `to`
# (or the default route with -default).
set explicit_routes 0
proc route {args} {
    global opt explicit_routes
    if {$opt(routing) ne "manual"} { return }
    incr explicit_routes
    set from [lindex $args end-1]
    [$from get-module "Manual"] add-route-to-adj-node {*}[lreplace $args end-1 end-1]
}
# RED's random draws come from ns-2's default generator: seed it too, so
# that replications differ (the error models have their own, below).
global defaultRNG
$defaultRNG seed [expr {$opt(seed) * 104729 + 17}]
if {$opt(maxcwnd) > 0} { Agent/TCP set maxcwnd_ $opt(maxcwnd) }
# A random processing delay before each send, uniform in [0, overhead]
# (dupack's tcp.overhead): the standard remedy for phase effects.
if {$opt(overhead) > 0} { Agent/TCP set overhead_ $opt(overhead) }
if {$opt(bneck_kind) eq "red"} {
    # Queue/RED with every parameter explicit: ns-2.35's automatic
    # thresholds and weight, adaptive RED and gentle are off unless asked.
    Queue/RED set thresh_ $opt(red_min)
    Queue/RED set maxthresh_ $opt(red_max)
    Queue/RED set linterm_ [expr {1.0 / $opt(red_maxp)}]
    Queue/RED set q_weight_ $opt(red_wq)
    Queue/RED set gentle_ $opt(red_gentle)
    Queue/RED set setbit_ $opt(red_ecn)
    Queue/RED set mean_pktsize_ $opt(red_mean_pkt)
    Queue/RED set adaptive_ 0
    Queue/RED set bytes_ false
    Queue/RED set queue_in_bytes_ false
    # FJ93 Fig. 2 as dupack: pa = pb/(1 - count·pb). ns-2's default wait_ true
    # instead keeps pa = 0 until count·pb reaches 1 (evenly spaced drops).
    Queue/RED set wait_ false
    Queue/RED set drop_tail_ true
}

proc queue_limit {from to limit} {
    global ns
    # ns-2's DropTail refuses an arrival when (length + 1) >= limit, i.e. it
    # holds limit - 1 waiting packets; dupack's limit counts waiting packets.
    $ns queue-limit $from $to [expr {$limit + 1}]
}

proc add_loss {from to p} {
    global ns opt
    if {$p <= 0} { return }
    # Its own stream, at the seed's substream (mirror.tcl).
    set rv [dupack_uniform $opt(seed)]
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $p
    $em ranvar $rv
    $em drop-target [new Agent/Null]
    # After the link: a lost packet has used its serialisation time, as in dupack.
    $ns link-lossmodel $em $from $to
}

set senders {}
if {$opt(topo) eq "dumbbell"} {
    set router [$ns node]
    set sink [$ns node]
    if {$opt(bneck_kind) eq "red"} {
        $ns simplex-link $router $sink $opt(bneck_rate) $opt(bneck_delay) RED
        $ns simplex-link $sink $router $opt(bneck_rate) $opt(bneck_delay) DropTail
    } else {
        $ns duplex-link $router $sink $opt(bneck_rate) $opt(bneck_delay) DropTail
    }
    if {$opt(bneck_kind) eq "red"} {
        # Queue/RED refuses an arrival when qlen >= limit: it holds `limit`
        # waiting packets, as dupack does.
        $ns queue-limit $router $sink $opt(bneck_q)
    } else {
        queue_limit $router $sink $opt(bneck_q)
    }
    # Arrivals, drops and departures of the bottleneck queue (printed as QUEUE).
    set qmon [$ns monitor-queue $router $sink [open /dev/null w] 0.1]
    if {$opt(qtrace) ne ""} {
        # The bottleneck's own packet trace: validation/peers.py counts ECN
        # marks and the longest queue from it (ns-2 keeps no such counters).
        $ns trace-queue $router $sink [open $opt(qtrace) w]
    }
    queue_limit $sink $router $opt(bneck_q)
    for {set i 0} {$i < $opt(n)} {incr i} {
        set s [$ns node]
        $ns duplex-link $s $router $opt(access_rate) $opt(access_delay) DropTail
        queue_limit $s $router $opt(access_q)
        queue_limit $router $s $opt(access_q)
        add_loss $s $router $opt(loss)
        route -default $s $router
        route $router $s
        lappend senders $s
    }
    route -default $sink $router
    route $router $sink
} elseif {$opt(topo) eq "link"} {
    set s [$ns node]
    set sink [$ns node]
    $ns duplex-link $s $sink $opt(bneck_rate) $opt(bneck_delay) DropTail
    queue_limit $s $sink $opt(bneck_q)
    queue_limit $sink $s $opt(bneck_q)
    add_loss $s $sink $opt(loss)
    route -default $s $sink
    route -default $sink $s
    lappend senders $s
} else {
    puts stderr "tcp_bench.tcl: unknown topo '$opt(topo)'"
    exit 2
}

set ecn 0
switch -- $opt(variant) {
    reno    { set tcpclass Agent/TCP/Reno;    set sinkclass Agent/TCPSink }
    newreno { set tcpclass Agent/TCP/Newreno; set sinkclass Agent/TCPSink }
    newreno+ecn { set tcpclass Agent/TCP/Newreno; set sinkclass Agent/TCPSink; set ecn 1 }
    sack    { set tcpclass Agent/TCP/Sack1;   set sinkclass Agent/TCPSink/Sack1 }
    vegas   { set tcpclass Agent/TCP/Vegas;   set sinkclass Agent/TCPSink }
    default { puts stderr "tcp_bench.tcl: unknown variant '$opt(variant)'"; exit 2 }
}

set i 0
foreach s $senders {
    set tcp($i) [new $tcpclass]
    $tcp($i) set fid_ $i
    $tcp($i) set ecn_ $ecn
    set snk($i) [new $sinkclass]
    $ns attach-agent $s $tcp($i)
    $ns attach-agent $sink $snk($i)
    $ns connect $tcp($i) $snk($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at 0.0 "$ftp($i) start"
    incr i
}

proc finish {} {
    global ns opt tcp snk qmon explicit_routes
    for {set i 0} {$i < [array size tcp]} {incr i} {
        set t $tcp($i)
        puts [format "FLOW %d ndatapack=%d nackpack=%d nrexmit=%d nrexmitpack=%d ncwndcuts=%d necn=%d sink_bytes=%d ack=%d" \
            $i [$t set ndatapack_] [$t set nackpack_] [$t set nrexmit_] [$t set nrexmitpack_] \
            [$t set ncwndcuts_] [$t set necnresponses_] [$snk($i) set bytes_] [$t set ack_]]
    }
    if {[info exists qmon]} {
        set dur [$ns now]
        set busy [expr {[$qmon set bdepartures_] * 8.0 / $opt(bneck_rate) / $dur}]
        set q [[$qmon get-pkts-integrator] set sum_]
        puts [format "QUEUE arrivals=%d drops=%d departures=%d utilisation=%.6f avg_queue=%.6f" \
            [$qmon set parrivals_] [$qmon set pdrops_] [$qmon set pdepartures_] $busy [expr {$q / $dur}]]
    }
    puts "ROUTES routing=$opt(routing) explicit=$explicit_routes"
    $ns flush-trace
    puts "END [$ns now]"
    exit 0
}
$ns at $opt(duration) "finish"
$ns run
