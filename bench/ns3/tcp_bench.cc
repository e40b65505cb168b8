// ns-3.44 mirror of the dupack benchmark scenarios (bench/scenarios/*.toml).
//
// Built against the headers and libraries of the PyPI `ns3` wheel by
// bench/ns3build.py (which caches the executable by source hash) and run by
// bench/run.py with the values of the very TOML dupack reads:
//
//   tcp_bench key=value ...
//
// Keys (defaults in `Options` below): topo=dumbbell|link, n, variant=newreno|sack,
// cc=newreno|linuxreno|cubic (cubic: TcpCubic set up as dupack's `+cc=cubic`,
// see ConfigureCubic in common.h), duration [s], seed, mss [B], window [B], iw [segments],
// dupthresh, minrto/initrto [s], tick [s] (clock granularity), access_rate,
// bneck_rate [bit/s], access_delay, bneck_delay [s], access_q, bneck_q
// [packets waiting], loss (per data packet) or ber (per bit of a data packet),
// recovery=classic|prr (ns-3's recovery algorithm; classic is the mirror, prr
// is ns-3's default and serves as a control run in bench/run.py), synretries
// (SYN retransmissions before giving up; unlimited by default), cwndtrace (a
// file for flow 0's window trace, see HookCwnd in common.h; none by default).
//
// topo=dumbbell: n senders -- access link -- router -- bottleneck -- sink;
//   losses on the access links' sender->router direction.
// topo=link: one sender -- one link -- one receiver; losses on the data direction.
//
// Choices, each made to match dupack (docs/performance.md lists them):
//  * Queues: no traffic-control queue disc (it is removed after addressing),
//    so a packet goes straight to the PointToPointNetDevice's DropTailQueue.
//    The device dequeues a packet when its transmission starts, so the queue
//    holds only *waiting* packets and MaxSize = limit is dupack's limit.
//  * Losses: an error model on the receiving device of the lossy direction
//    (the packet has used its transmission time, as in dupack). It drops only
//    packets that carry TCP payload (dupack's applies_to = "data"); SYN, ACK
//    and FIN are never lost. With ber=, a packet of s IP bytes is lost with
//    probability 1 - (1 - ber)^(8 s), s = the IP datagram (PPP header excluded).
//  * TCP: NewReno congestion control with classic (RFC 6582 / RFC 6675)
//    recovery rather than ns-3's default PRR, SACK on for variant=sack and off
//    for variant=newreno, no timestamps, no window scaling, no limited
//    transmit, an ACK for every segment, initial window iw, RTO floor minrto
//    with clock granularity tick, unlimited data and SYN retries (ns-3 would
//    otherwise abort a connection after 6 back-to-back timeouts, and give up
//    opening it after 6 lost SYNs; synretries=6 restores that default for a
//    control run).
//  * Routing: static routes (default routes towards the router), so that
//    set-up does not include a global shortest-path computation.
//
// Output: one line per flow and a last line
//   FLOW <i> rx_bytes=.. data_pkts=.. rexmit_pkts=.. acks_rx=.. fast_rexmits=.. timeouts=.. first_data_ms=..
//   END sim=<s> events=<events executed>
// rx_bytes: payload delivered in order to the sink application. fast_rexmits
// and timeouts: entries into CA_RECOVERY and CA_LOSS as seen by the
// congestion-control object (every expiry of the retransmission timer enters
// CA_LOSS again, so each backoff counts, as in dupack). first_data_ms: when
// the flow's first data segment left (its connection was open), -1 if never.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"

#include "common.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

using namespace ns3;
using namespace dupack_ns3;

namespace
{

// ---------------------------------------------------------------------------

struct Options
{
    std::map<std::string, std::string> kv{
        {"topo", "dumbbell"},
        {"n", "10"},
        {"variant", "newreno"},
        {"cc", "newreno"},
        {"duration", "200"},
        {"seed", "1"},
        {"mss", "1000"},
        {"window", "64000"},
        {"iw", "1"},
        {"dupthresh", "3"},
        {"minrto", "1.0"},
        {"initrto", "1.0"},
        {"tick", "0.001"},
        {"access_rate", "1e6"},
        {"access_delay", "0.010"},
        {"access_q", "1000"},
        {"bneck_rate", "3e6"},
        {"bneck_delay", "0.020"},
        {"bneck_q", "150"},
        {"loss", "0"},
        {"ber", "0"},
        {"recovery", "classic"},
        {"synretries", "1073741824"},
        {"cwndtrace", ""},
    };

    std::string S(const std::string& k) const
    {
        return kv.at(k);
    }

    double D(const std::string& k) const
    {
        return std::stod(kv.at(k));
    }

    uint64_t U(const std::string& k) const
    {
        return static_cast<uint64_t>(std::stod(kv.at(k)));
    }
};

Ptr<DataLoss>
MakeLoss(const Options& o, int64_t stream)
{
    Ptr<DataLoss> em = CreateObject<DataLoss>();
    em->Configure(o.D("loss"), o.D("ber"), stream);
    return em;
}

void
SetQueue(PointToPointHelper& h, uint64_t limit)
{
    h.SetQueue("ns3::DropTailQueue<Packet>",
               "MaxSize",
               QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)));
}

} // namespace

int
main(int argc, char** argv)
{
    Options o;
    for (int a = 1; a < argc; ++a)
    {
        std::string arg = argv[a];
        auto eq = arg.find('=');
        if (eq == std::string::npos || !o.kv.count(arg.substr(0, eq)))
        {
            std::fprintf(stderr, "tcp_bench: bad argument '%s'\n", arg.c_str());
            return 2;
        }
        o.kv[arg.substr(0, eq)] = arg.substr(eq + 1);
    }
    const std::string variant = o.S("variant");
    const std::string cc = o.S("cc");
    const std::string recovery = o.S("recovery");
    if ((variant != "newreno" && variant != "sack") || (cc != "newreno" && cc != "linuxreno" && cc != "cubic") ||
        (recovery != "classic" && recovery != "prr"))
    {
        std::fprintf(stderr,
                     "tcp_bench: variant must be newreno|sack, cc newreno|linuxreno|cubic, recovery classic|prr\n");
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(o.U("seed"));

    // --- TCP defaults, for every socket --------------------------------------
    const bool useLinux = cc == "linuxreno";
    const bool useCubic = cc == "cubic";
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(useCubic   ? Counting<TcpCubic>::GetTypeId()
                                   : useLinux ? Counting<TcpLinuxReno>::GetTypeId()
                                              : Counting<TcpNewReno>::GetTypeId()));
    if (useCubic)
    {
        ConfigureCubic();
    }
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(o.U("mss")));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(o.U("iw")));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(o.U("window")));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 * o.U("window")));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(o.D("initrto"))));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(o.U("synretries")));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(variant == "sack"));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(o.U("dupthresh")));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(o.D("minrto"))));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(Seconds(o.D("tick"))));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(o.D("initrto"))));

    // --- topology ------------------------------------------------------------
    InternetStackHelper stack;
    Ipv4StaticRoutingHelper staticRouting;
    stack.SetRoutingHelper(staticRouting);
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.0");
    TrafficControlHelper tch;
    NetDeviceContainer allDevices;

    NodeContainer senders;
    Ptr<Node> sinkNode;
    Ipv4Address sinkAddress;
    int64_t stream = 1000;

    if (o.S("topo") == "dumbbell")
    {
        const uint64_t n = o.U("n");
        senders.Create(n);
        NodeContainer core;
        core.Create(2); // router, sink
        Ptr<Node> router = core.Get(0);
        sinkNode = core.Get(1);
        stack.Install(senders);
        stack.Install(core);

        PointToPointHelper bneck;
        bneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(o.D("bneck_rate")))));
        bneck.SetChannelAttribute("Delay", TimeValue(Seconds(o.D("bneck_delay"))));
        SetQueue(bneck, o.U("bneck_q"));
        NetDeviceContainer bd = bneck.Install(router, sinkNode);
        allDevices.Add(bd);
        Ipv4InterfaceContainer bi = addr.Assign(bd);
        addr.NewNetwork();
        sinkAddress = bi.GetAddress(1);
        staticRouting.GetStaticRouting(sinkNode->GetObject<Ipv4>())
            ->SetDefaultRoute(bi.GetAddress(0), 1);

        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(o.D("access_rate")))));
        access.SetChannelAttribute("Delay", TimeValue(Seconds(o.D("access_delay"))));
        SetQueue(access, o.U("access_q"));
        const bool lossy = o.D("loss") > 0 || o.D("ber") > 0;
        for (uint64_t i = 0; i < n; ++i)
        {
            NetDeviceContainer ad = access.Install(senders.Get(i), router);
            allDevices.Add(ad);
            Ipv4InterfaceContainer ai = addr.Assign(ad);
            addr.NewNetwork();
            staticRouting.GetStaticRouting(senders.Get(i)->GetObject<Ipv4>())
                ->SetDefaultRoute(ai.GetAddress(1), 1);
            if (lossy)
            {
                ad.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(MakeLoss(o, stream++)));
            }
        }
    }
    else if (o.S("topo") == "link")
    {
        senders.Create(1);
        NodeContainer rx;
        rx.Create(1);
        sinkNode = rx.Get(0);
        stack.Install(senders);
        stack.Install(rx);
        PointToPointHelper link;
        link.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(o.D("bneck_rate")))));
        link.SetChannelAttribute("Delay", TimeValue(Seconds(o.D("bneck_delay"))));
        SetQueue(link, o.U("bneck_q"));
        NetDeviceContainer d = link.Install(senders.Get(0), sinkNode);
        allDevices.Add(d);
        Ipv4InterfaceContainer li = addr.Assign(d);
        sinkAddress = li.GetAddress(1);
        if (o.D("loss") > 0 || o.D("ber") > 0)
        {
            d.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(MakeLoss(o, stream++)));
        }
    }
    else
    {
        std::fprintf(stderr, "tcp_bench: topo must be dumbbell|link\n");
        return 2;
    }
    // Addressing installed the default queue disc on every device; remove it so
    // that the device's DropTail queue is the only queue (see the header).
    tch.Uninstall(allDevices);

    // --- applications ----------------------------------------------------------
    const double duration = o.D("duration");
    std::vector<Ptr<BulkSendApplication>> apps;
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < senders.GetN(); ++i)
    {
        const uint16_t port = 5000 + i;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkHelper.Install(sinkNode);
        sa.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));

        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sinkAddress, port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(o.U("mss")));
        ApplicationContainer ba = bulk.Install(senders.Get(i));
        ba.Start(Seconds(0));
        apps.push_back(DynamicCast<BulkSendApplication>(ba.Get(0)));
    }
    g_flows.assign(apps.size(), FlowCounters{});
    // The sender sockets exist once the applications have started (t = 0); only
    // the SYN precedes the hook.
    for (size_t i = 0; i < apps.size(); ++i)
    {
        Simulator::Schedule(NanoSeconds(1), &HookSocket, i, apps[i]);
    }
    if (!o.S("cwndtrace").empty())
    {
        g_cwndTrace = std::fopen(o.S("cwndtrace").c_str(), "w");
        NS_ABORT_MSG_UNLESS(g_cwndTrace, "cannot write " << o.S("cwndtrace"));
        Simulator::Schedule(NanoSeconds(1), &HookCwnd, apps[0]);
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    for (size_t i = 0; i < apps.size(); ++i)
    {
        uint64_t fr = 0;
        uint64_t to = 0;
        if (useCubic)
        {
            ReadCounters<Counting<TcpCubic>>(apps[i], fr, to);
        }
        else if (useLinux)
        {
            ReadCounters<Counting<TcpLinuxReno>>(apps[i], fr, to);
        }
        else
        {
            ReadCounters<Counting<TcpNewReno>>(apps[i], fr, to);
        }
        std::printf("FLOW %zu rx_bytes=%llu data_pkts=%llu rexmit_pkts=%llu acks_rx=%llu "
                    "fast_rexmits=%llu timeouts=%llu first_data_ms=%lld\n",
                    i,
                    static_cast<unsigned long long>(sinks[i]->GetTotalRx()),
                    static_cast<unsigned long long>(g_flows[i].dataPkts),
                    static_cast<unsigned long long>(g_flows[i].rexmitPkts),
                    static_cast<unsigned long long>(g_flows[i].acksRx),
                    static_cast<unsigned long long>(fr),
                    static_cast<unsigned long long>(to),
                    static_cast<long long>(g_flows[i].firstDataMs));
    }
    std::printf("END sim=%.6f events=%llu\n",
                Simulator::Now().GetSeconds(),
                static_cast<unsigned long long>(Simulator::GetEventCount()));
    std::fflush(stdout);
    if (g_cwndTrace)
    {
        std::fclose(g_cwndTrace);
    }
    // Skip Simulator::Destroy and the teardown of thousands of objects: the
    // benchmark times the simulation, and the process exits here anyway.
    std::_Exit(0);
}
