# The ns-2.35 side of the dupack configuration mirror, shared by every OTcl
# script of validation/ns2/ and by bench/ns2/tcp_bench.tcl.
#
#   source [file join [file dirname [info script]] mirror.tcl]
#   dupack_args opt script.tcl $argv    ;# KEY=VALUE arguments into the defaults in opt
#   dupack_mirror mss window iw dupthresh tick minrto initrto maxrto sackblocks
#
# Sizes: `mss` payload bytes; `window` in segments (ns-2's window_ is in
# packets). Times in seconds. docs/validation.md lists every pair.

# Read KEY=VALUE arguments into the caller's array `arr`, whose keys are the
# arguments allowed (set to their defaults); anything else stops the script
# with exit code 2, naming it.
proc dupack_args {arr script argv} {
    upvar 1 $arr opt
    foreach a $argv {
        set kv [split $a =]
        if {[llength $kv] != 2 || ![info exists opt([lindex $kv 0])]} {
            puts stderr "$script: bad argument '$a'"
            exit 2
        }
        set opt([lindex $kv 0]) [lindex $kv 1]
    }
}

proc dupack_mirror {mss window iw dupthresh tick minrto initrto maxrto sackblocks} {
    # ns-2.35 adds the 40 header bytes to every data packet but the one with
    # seqno 0 when syn_ is off (TcpAgent::output: the header is added in the
    # `else` of the SYN test), so its first packet would be 1000 B instead of
    # 1040 B. Sizing the packet whole and turning useHeaders_ off gives every
    # data packet dupack's 1040 B (20 IP + 20 TCP + payload).
    Agent/TCP set packetSize_ [expr {$mss + 40}]
    Agent/TCP set useHeaders_ false
    Agent/TCP set tcpip_base_hdr_size_ 40
    Agent/TCP set window_ $window         ;# receiver window, packets
    Agent/TCP set windowInit_ $iw
    Agent/TCP set syn_ false              ;# dupack has no handshake
    # With delay_growth_ on (the 2.35 default) the first ACK resets cwnd to
    # the initial window, as if it acknowledged a SYN; dupack opens cwnd on
    # it (RFC 5681 §3.1 slow start from the first data ACK).
    Agent/TCP set delay_growth_ false
    Agent/TCP set singledup_ 0            ;# no limited transmit (2.35 default is on)
    Agent/TCP set numdupacks_ $dupthresh
    Agent/TCP set tcpTick_ $tick          ;# RTT clock granularity
    Agent/TCP set minrto_ $minrto
    Agent/TCP set rtxcur_init_ $initrto
    Agent/TCP set maxrto_ $maxrto
    Agent/TCP set maxburst_ 0
    Agent/TCP set timestamps_ false
    Agent/TCP set ecn_ 0
    # RFC 6582: on a full ACK cwnd = min(ssthresh, outstanding) (dupack's
    # newreno_full_ack = "flightsize"); the timer is reset on the first
    # partial ACK only (newreno_rto_reset = "first"); deflate by the data acked.
    Agent/TCP/Newreno set exit_recovery_fix_ 1
    Agent/TCP/Newreno set newreno_changes1_ 1
    Agent/TCP/Newreno set partial_window_deflation_ 1
    Agent/TCPSink set maxSackBlocks_ $sackblocks
    Agent/TCPSink set packetSize_ 40      ;# ACKs: 20 IP + 20 TCP
}

# The payload bytes a sink's bytes_ counter stands for (every data packet
# is mss + 40 bytes on the wire).
proc dupack_payload {bytes mss} {
    return [expr {$bytes / ($mss + 40) * $mss}]
}

# A uniform random variable for one error model of the run seeded `seed`
# (0, 1, 2, ...), independent of every other error model's and of the other
# seeds'. Each `new RNG` is a stream of its own of ns-2's MRG32k3a
# (RNG::RNG takes the next stream from the package seed), and the seed picks
# the stream's substream, as the ns-2 manual's "independent replications"
# example does (ch. 25). Seeding RNGs with nearby raw numbers (`$rng seed
# S+k`) does not give independent streams: ns-2 sets all six words of the
# state to the number, every draw is then a linear function of it, and the
# first draws of 200 RNGs seeded S+1 ... S+200 lie within 0.067 of each
# other, so that with loss 0.05 most flows lost their first packet together
# in some seeds and none did in others (tests/test_validation_ns2.py,
# `test_loss_streams_are_independent`).
proc dupack_uniform {seed} {
    set rng [new RNG]
    for {set i 0} {$i < $seed} {incr i} { $rng next-substream }
    set rv [new RandomVariable/Uniform]
    $rv use-rng $rng
    return $rv
}
