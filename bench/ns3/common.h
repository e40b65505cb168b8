// Pieces shared by the project's ns-3 programs (bench/ns3/tcp_bench.cc,
// validation/ns3/lossy_flow.cc): a congestion-control class that counts the
// recovery episodes it is told about, an error model that loses data packets
// only, and per-flow packet counters fed by the sockets' trace sources.
// bench/ns3build.py puts this directory on the include path.

#ifndef DUPACK_NS3_COMMON_H
#define DUPACK_NS3_COMMON_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/ppp-header.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace dupack_ns3
{
using namespace ns3;

// ---------------------------------------------------------------------------
// Congestion control that counts the recovery episodes it is told about.

template <class Base>
class Counting : public Base
{
  public:
    static TypeId GetTypeId();

    Counting() = default;

    Counting(const Counting& other)
        : Base(other)
    {
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        if (newState == TcpSocketState::CA_RECOVERY)
        {
            ++fastRetransmits;
        }
        else if (newState == TcpSocketState::CA_LOSS)
        {
            ++timeouts;
        }
        Base::CongestionStateSet(tcb, newState);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<Counting<Base>>(this);
    }

    uint64_t fastRetransmits{0};
    uint64_t timeouts{0};
};

template <>
inline TypeId
Counting<TcpNewReno>::GetTypeId()
{
    static TypeId tid = TypeId("dupack::CountingNewReno")
                            .SetParent<TcpNewReno>()
                            .SetGroupName("Internet")
                            .AddConstructor<Counting<TcpNewReno>>();
    return tid;
}

template <>
inline TypeId
Counting<TcpLinuxReno>::GetTypeId()
{
    static TypeId tid = TypeId("dupack::CountingLinuxReno")
                            .SetParent<TcpLinuxReno>()
                            .SetGroupName("Internet")
                            .AddConstructor<Counting<TcpLinuxReno>>();
    return tid;
}

template <>
inline TypeId
Counting<TcpCubic>::GetTypeId()
{
    static TypeId tid = TypeId("dupack::CountingCubic")
                            .SetParent<TcpCubic>()
                            .SetGroupName("Internet")
                            .AddConstructor<Counting<TcpCubic>>();
    return tid;
}

// CUBIC as dupack's `+cc=cubic` runs it (RFC 9438): beta 0.7, C 0.4, fast
// convergence, the Reno-friendly region, no HyStart (slow start is RFC
// 5681's). These are TcpCubic's attributes, so they reach the counting
// subclass too.
inline void
ConfigureCubic()
{
    Config::SetDefault("ns3::TcpCubic::Beta", DoubleValue(0.7));
    Config::SetDefault("ns3::TcpCubic::C", DoubleValue(0.4));
    Config::SetDefault("ns3::TcpCubic::FastConvergence", BooleanValue(true));
    Config::SetDefault("ns3::TcpCubic::TcpFriendliness", BooleanValue(true));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
}

// ---------------------------------------------------------------------------
// Loss of data packets only, per packet or per bit.

class DataLoss : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("dupack::DataLoss")
                                .SetParent<ErrorModel>()
                                .SetGroupName("Network")
                                .AddConstructor<DataLoss>();
        return tid;
    }

    DataLoss()
        : m_uniform(CreateObject<UniformRandomVariable>())
    {
    }

    void Configure(double perPacket, double ber, int64_t stream)
    {
        m_perPacket = perPacket;
        m_ber = ber;
        m_uniform->SetStream(stream);
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        c->RemoveHeader(ppp);
        Ipv4Header ip;
        c->RemoveHeader(ip);
        TcpHeader tcp;
        c->RemoveHeader(tcp);
        if (c->GetSize() == 0)
        {
            return false; // no payload: SYN, ACK, FIN
        }
        double pr = m_perPacket;
        if (m_ber > 0)
        {
            pr = 1.0 - std::pow(1.0 - m_ber, 8.0 * ip.GetPayloadSize() + 8.0 * ip.GetSerializedSize());
        }
        return m_uniform->GetValue() < pr;
    }

    void DoReset() override
    {
    }

    Ptr<UniformRandomVariable> m_uniform;
    double m_perPacket{0};
    double m_ber{0};
};


struct FlowCounters
{
    uint64_t dataPkts{0};
    uint64_t rexmitPkts{0};
    uint64_t acksRx{0};
    // When the first data segment left (the connection was open by then); -1: never.
    int64_t firstDataMs{-1};
};

// One entry per flow, indexed like the applications.
inline std::vector<FlowCounters> g_flows;

inline void
OnTx(size_t i, Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        if (g_flows[i].dataPkts == 0)
        {
            g_flows[i].firstDataMs = Simulator::Now().GetMilliSeconds();
        }
        ++g_flows[i].dataPkts;
    }
}

inline void
OnRetransmit(size_t i,
             Ptr<const Packet>,
             const TcpHeader&,
             const Address&,
             const Address&,
             Ptr<const TcpSocketBase>)
{
    ++g_flows[i].rexmitPkts;
}

inline void
OnRx(size_t i, Ptr<const Packet>, const TcpHeader&, Ptr<const TcpSocketBase>)
{
    ++g_flows[i].acksRx;
}

inline void
HookSocket(size_t i, Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_UNLESS(s, "flow " << i << " has no socket yet");
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i));
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&OnRetransmit, i));
    s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, i));
}

// The window trace of one flow: "W <t> <cwnd bytes>" at every change of the
// congestion window and "R <t>" each time the socket enters fast recovery
// (its CongestionWindow and CongState trace sources).
inline FILE* g_cwndTrace = nullptr;

inline void
OnCwnd(uint32_t, uint32_t now)
{
    std::fprintf(g_cwndTrace, "W %.9f %u\n", Simulator::Now().GetSeconds(), now);
}

inline void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        std::fprintf(g_cwndTrace, "R %.9f\n", Simulator::Now().GetSeconds());
    }
}

inline void
HookCwnd(Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_UNLESS(s && g_cwndTrace, "no socket or trace file for the window trace");
    // The handshake sets the first window, so every value is traced.
    s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnCwnd));
    s->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
}

template <class T>
void
ReadCounters(Ptr<BulkSendApplication> app, uint64_t& fr, uint64_t& to)
{
    PointerValue pv;
    app->GetSocket()->GetAttribute("CongestionOps", pv);
    Ptr<T> cc = DynamicCast<T>(pv.GetObject());
    NS_ABORT_MSG_UNLESS(cc, "unexpected congestion-control object");
    fr = cc->fastRetransmits;
    to = cc->timeouts;
}

} // namespace dupack_ns3

#endif
