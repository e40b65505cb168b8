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
# At the end one line per flow is printed:
#   FLOW <i> ndatapack=.. nackpack=.. nrexmit=.. nrexmitpack=.. ncwndcuts=.. sink_bytes=.. ack=..
# and a last line "END <simulated seconds>".

array set opt {
    topo dumbbell n 10 variant newreno duration 200 seed 1
    access_rate 1e6 access_delay 0.010 access_q 1000
    bneck_rate 3e6 bneck_delay 0.020 bneck_q 150
    loss 0.0 mss 1000 window 64 iw 1 dupthresh 3
    tick 0.001 minrto 1.0 initrto 1.0 maxrto 60.0 sackblocks 3
}
foreach a $argv {
    set kv [split $a =]
    if {[llength $kv] != 2 || ![info exists opt([lindex $kv 0])]} {
        puts stderr "tcp_bench.tcl: bad argument '$a'"
        exit 2
    }
    set opt([lindex $kv 0]) [lindex $kv 1]
}

# --- TCP configuration, as class defaults so every agent gets them --------
Agent/TCP set packetSize_ $opt(mss)       ;# payload bytes; +40 header bytes on the wire
Agent/TCP set tcpip_base_hdr_size_ 40
Agent/TCP set window_ $opt(window)        ;# receiver window, packets
Agent/TCP set windowInit_ $opt(iw)
Agent/TCP set syn_ false                  ;# no connection setup: data from t=0 (dupack has no handshake)
Agent/TCP set singledup_ 0                ;# no limited transmit (ns-2.35 default is on)
Agent/TCP set numdupacks_ $opt(dupthresh)
Agent/TCP set tcpTick_ $opt(tick)         ;# RTT clock granularity
Agent/TCP set minrto_ $opt(minrto)
Agent/TCP set rtxcur_init_ $opt(initrto)
Agent/TCP set maxrto_ $opt(maxrto)
Agent/TCP set maxburst_ 0
Agent/TCP set timestamps_ false
Agent/TCP set ecn_ 0
# RFC 6582: on a full ACK, cwnd = min(ssthresh, outstanding) (dupack's
# newreno_full_ack = "flightsize"); reset the timer on the first partial ACK
# only (dupack's newreno_rto_reset = "first"); deflate by the data acked.
Agent/TCP/Newreno set exit_recovery_fix_ 1
Agent/TCP/Newreno set newreno_changes1_ 1
Agent/TCP/Newreno set partial_window_deflation_ 1
Agent/TCPSink set maxSackBlocks_ $opt(sackblocks)

set ns [new Simulator]

proc queue_limit {from to limit} {
    global ns
    # ns-2's DropTail refuses an arrival when (length + 1) >= limit, i.e. it
    # holds limit - 1 waiting packets; dupack's limit counts waiting packets.
    $ns queue-limit $from $to [expr {$limit + 1}]
}

set nerr 0
proc add_loss {from to p} {
    global ns opt nerr
    if {$p <= 0} { return }
    set rng [new RNG]
    $rng seed [expr {$opt(seed) * 7919 + $nerr + 1}]
    incr nerr
    set rv [new RandomVariable/Uniform]
    $rv use-rng $rng
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
    $ns duplex-link $router $sink $opt(bneck_rate) $opt(bneck_delay) DropTail
    queue_limit $router $sink $opt(bneck_q)
    queue_limit $sink $router $opt(bneck_q)
    for {set i 0} {$i < $opt(n)} {incr i} {
        set s [$ns node]
        $ns duplex-link $s $router $opt(access_rate) $opt(access_delay) DropTail
        queue_limit $s $router $opt(access_q)
        queue_limit $router $s $opt(access_q)
        add_loss $s $router $opt(loss)
        lappend senders $s
    }
} elseif {$opt(topo) eq "link"} {
    set s [$ns node]
    set sink [$ns node]
    $ns duplex-link $s $sink $opt(bneck_rate) $opt(bneck_delay) DropTail
    queue_limit $s $sink $opt(bneck_q)
    queue_limit $sink $s $opt(bneck_q)
    add_loss $s $sink $opt(loss)
    lappend senders $s
} else {
    puts stderr "tcp_bench.tcl: unknown topo '$opt(topo)'"
    exit 2
}

switch -- $opt(variant) {
    newreno { set tcpclass Agent/TCP/Newreno; set sinkclass Agent/TCPSink }
    sack    { set tcpclass Agent/TCP/Sack1;   set sinkclass Agent/TCPSink/Sack1 }
    default { puts stderr "tcp_bench.tcl: unknown variant '$opt(variant)'"; exit 2 }
}

set i 0
foreach s $senders {
    set tcp($i) [new $tcpclass]
    $tcp($i) set fid_ $i
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
    global ns opt tcp snk
    for {set i 0} {$i < [array size tcp]} {incr i} {
        set t $tcp($i)
        puts [format "FLOW %d ndatapack=%d nackpack=%d nrexmit=%d nrexmitpack=%d ncwndcuts=%d sink_bytes=%d ack=%d" \
            $i [$t set ndatapack_] [$t set nackpack_] [$t set nrexmit_] [$t set nrexmitpack_] \
            [$t set ncwndcuts_] [$snk($i) set bytes_] [$t set ack_]]
    }
    puts "END [$ns now]"
    exit 0
}
$ns at $opt(duration) "finish"
$ns run
