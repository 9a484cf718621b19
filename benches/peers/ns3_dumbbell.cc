// The dumbbell_10g benchmark (python/dcbsim/scenarios/bench/dumbbell_10g.toml) in ns-3 3.37, for a
// speed comparison: 5 senders at 2.5 Gb/s constant rate, 1000-byte frames on the wire,
// into one 10 Gb/s bottleneck; every link 10 Gb/s with 1 us propagation delay; a
// 131072-byte drop-tail queue at the switch's port towards the receiver; 1 s
// simulated; no congestion control.
//
// The switch is an IPv4 router (ns-3's usual stand-in), the traffic UDP with
// 970-byte payloads (+ 8 UDP + 20 IP + 2 PPP = 1000 bytes on the wire), the senders
// OnOff applications that are always on and start together at 0, as dcbsim's
// constant-rate flows. The traffic-control layer is removed, so a port's queue is the
// device's drop-tail queue alone.
//
// Prints the wall time of Simulator::Run, simulated seconds per wall second, events
// executed and frames sent, delivered and lost.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>

using namespace ns3;

static uint64_t g_sent = 0;

static void
CountSent(Ptr<const Packet>)
{
    g_sent++;
}

int
main(int argc, char* argv[])
{
    uint32_t senders = 5;
    double seconds = 1.0;
    CommandLine cmd;
    cmd.AddValue("senders", "number of senders", senders);
    cmd.AddValue("seconds", "simulated seconds", seconds);
    cmd.Parse(argc, argv);

    const uint32_t wire = 1000;
    const uint32_t payload = wire - 8 - 20 - 2;
    const double sender_bps = 2.5e9;

    NodeContainer hosts;
    hosts.Create(senders);
    Ptr<Node> sw = CreateObject<Node>();
    Ptr<Node> rx = CreateObject<Node>();
    NodeContainer all(hosts);
    all.Add(sw);
    all.Add(rx);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("131072B"));

    InternetStackHelper stack;
    stack.Install(all);
    Ipv4AddressHelper address;
    TrafficControlHelper tch;

    for (uint32_t i = 0; i < senders; i++)
    {
        NetDeviceContainer d = p2p.Install(hosts.Get(i), sw);
        char base[32];
        std::snprintf(base, sizeof base, "10.1.%u.0", i + 1);
        address.SetBase(base, "255.255.255.0");
        address.Assign(d); // installs the default queue discs, removed next
        tch.Uninstall(d);
    }
    NetDeviceContainer bottleneck = p2p.Install(sw, rx);
    address.SetBase("10.2.1.0", "255.255.255.0");
    Ipv4InterfaceContainer rxIf = address.Assign(bottleneck);
    tch.Uninstall(bottleneck);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    uint16_t port = 9;
    PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sink.Install(rx);
    sinkApp.Start(Seconds(0.0));

    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(rxIf.GetAddress(1), port));
    onoff.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1000]"));
    onoff.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
    onoff.SetAttribute("PacketSize", UintegerValue(payload));
    // OnOff paces its payload bytes: the payload rate that puts 2.5 Gb/s on the wire.
    onoff.SetAttribute("DataRate", DataRateValue(DataRate(uint64_t(sender_bps * payload / wire))));
    ApplicationContainer sources = onoff.Install(hosts);
    sources.Start(Seconds(0.0));
    for (uint32_t i = 0; i < sources.GetN(); i++)
    {
        sources.Get(i)->TraceConnectWithoutContext("Tx", MakeCallback(&CountSent));
    }
    sources.Stop(Seconds(seconds));

    Simulator::Stop(Seconds(seconds));
    auto started = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    uint64_t delivered = DynamicCast<PacketSink>(sinkApp.Get(0))->GetTotalRx() / payload;
    uint64_t events = Simulator::GetEventCount();
    // A full device queue stops its transmit queue, and the traffic-control layer then
    // drops what the switch forwards to it without a trace: count the lost frames as
    // those sent that were neither delivered nor still queued or on a wire.
    Ptr<Queue<Packet>> queue = DynamicCast<PointToPointNetDevice>(bottleneck.Get(0))->GetQueue();
    uint64_t lost = g_sent - delivered - queue->GetNPackets();
    std::printf("ns-3 dumbbell: simulated %.3f s in %.3f s wall = %.3f sim-s/s, %llu events "
                "(%.1f ns per event), sent %llu frames, delivered %llu, lost about %llu\n",
                seconds,
                wall,
                seconds / wall,
                (unsigned long long)events,
                wall * 1e9 / double(events),
                (unsigned long long)g_sent,
                (unsigned long long)delivered,
                (unsigned long long)lost);
    Simulator::Destroy();
    return 0;
}
