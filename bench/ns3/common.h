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
