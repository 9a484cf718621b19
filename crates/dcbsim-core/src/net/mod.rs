//! The network: ports (egress queue, serializer and link), hosts, switches, routing.
