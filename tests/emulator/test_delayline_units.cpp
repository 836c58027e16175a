// Parsing of the delay line's command-line quantities and link specs.
#include <gtest/gtest.h>

#include "link_model.hpp"
#include "units.hpp"

using namespace gridcoll::delayline;

TEST(DelaylineUnits, Durations) {
    EXPECT_EQ(parse_duration_ns("10ms"), 10'000'000);
    EXPECT_EQ(parse_duration_ns("1.5ms"), 1'500'000);
    EXPECT_EQ(parse_duration_ns("250us"), 250'000);
    EXPECT_EQ(parse_duration_ns("100ns"), 100);
    EXPECT_EQ(parse_duration_ns("2s"), 2'000'000'000);
    EXPECT_EQ(parse_duration_ns("0"), 0);
    EXPECT_EQ(parse_duration_ns(" 3 ms "), 3'000'000);
    for (const char* bad : {"", "10", "ms", "-1ms", "1e3ms", "10 parsecs", "1..2ms"}) {
        EXPECT_THROW(parse_duration_ns(bad), ParseError) << bad;
    }
}

TEST(DelaylineUnits, Rates) {
    EXPECT_EQ(parse_rate_bps("1Gbit"), 1'000'000'000u);
    EXPECT_EQ(parse_rate_bps("100mbit"), 100'000'000u);
    EXPECT_EQ(parse_rate_bps("2.5gbit"), 2'500'000'000u);
    EXPECT_EQ(parse_rate_bps("64kbit"), 64'000u);
    EXPECT_EQ(parse_rate_bps("1000000"), 1'000'000u);
    EXPECT_EQ(parse_rate_bps("100Mb/s"), 100'000'000u);
    EXPECT_EQ(parse_rate_bps("125MB/s"), 1'000'000'000u);  // bytes per second
    EXPECT_THROW(parse_rate_bps("100mbps"), ParseError);   // ambiguous, refused
    EXPECT_THROW(parse_rate_bps("fast"), ParseError);
    EXPECT_THROW(parse_rate_bps("1Gbyte"), ParseError);
}

TEST(DelaylineUnits, BytesAndLimits) {
    EXPECT_EQ(parse_bytes("1500"), 1500u);
    EXPECT_EQ(parse_bytes("64K"), 65536u);
    EXPECT_EQ(parse_bytes("4MiB"), 4u << 20);
    EXPECT_EQ(parse_bytes("1MB"), 1u << 20);  // same meaning as gridcoll::parse_bytes
    EXPECT_THROW(parse_bytes("1.5"), ParseError);
    EXPECT_THROW(parse_bytes("12 apples"), ParseError);

    EXPECT_EQ(parse_queue_limit("1000p"), (QueueLimit{QueueLimit::Unit::packets, 1000}));
    EXPECT_EQ(parse_queue_limit("50"), (QueueLimit{QueueLimit::Unit::packets, 50}));
    EXPECT_EQ(parse_queue_limit("7 packets"), (QueueLimit{QueueLimit::Unit::packets, 7}));
    EXPECT_EQ(parse_queue_limit("256K"), (QueueLimit{QueueLimit::Unit::bytes, 256 * 1024}));
    EXPECT_EQ(parse_queue_limit("1500B"), (QueueLimit{QueueLimit::Unit::bytes, 1500}));
    EXPECT_THROW(parse_queue_limit("0p"), ParseError);
    EXPECT_THROW(parse_queue_limit("lots"), ParseError);
}

TEST(DelaylineUnits, Probability) {
    EXPECT_DOUBLE_EQ(parse_probability("5%"), 0.05);
    EXPECT_DOUBLE_EQ(parse_probability("0.05"), 0.05);
    EXPECT_DOUBLE_EQ(parse_probability("0"), 0.0);
    EXPECT_DOUBLE_EQ(parse_probability("100%"), 1.0);
    EXPECT_THROW(parse_probability("101%"), ParseError);
    EXPECT_THROW(parse_probability("2"), ParseError);
    EXPECT_THROW(parse_probability("often"), ParseError);
}

TEST(DelaylineUnits, Formatting) {
    EXPECT_EQ(format_duration(10'000'000), "10ms");
    EXPECT_EQ(format_duration(1'500'000), "1.5ms");
    EXPECT_EQ(format_duration(250'000), "250us");
    EXPECT_EQ(format_duration(0), "0");
    EXPECT_EQ(format_rate(1'000'000'000), "1Gbit");
    EXPECT_EQ(format_rate(0), "unlimited");
    EXPECT_EQ(format_bytes(16u << 20), "16MiB");
    EXPECT_EQ(format_bytes(1500), "1500B");
    EXPECT_EQ(format_queue_limit({QueueLimit::Unit::packets, 10}), "10 packets");
}

TEST(DelaylineLinkSpec, OverridesOnlyGivenKeys) {
    LinkParams p;
    p.delay_ns = 5'000'000;
    p.rate_bps = 1'000'000;
    apply_link_spec(p, "jitter=1ms, loss=5%,dist=normal,order=any,limit=64K,seed=42,burst=3000");
    EXPECT_EQ(p.delay_ns, 5'000'000);
    EXPECT_EQ(p.rate_bps, 1'000'000u);
    EXPECT_EQ(p.jitter_ns, 1'000'000);
    EXPECT_DOUBLE_EQ(p.loss, 0.05);
    EXPECT_EQ(p.distribution, JitterDistribution::normal);
    EXPECT_FALSE(p.keep_order);
    EXPECT_EQ(p.limit, (QueueLimit{QueueLimit::Unit::bytes, 65536}));
    EXPECT_EQ(p.seed, 42u);
    EXPECT_EQ(p.burst_bytes, 3000u);
    apply_link_spec(p, "rate=unlimited,delay=20ms");
    EXPECT_EQ(p.rate_bps, 0u);
    EXPECT_EQ(p.delay_ns, 20'000'000);
    apply_link_spec(p, "");  // nothing to change
    EXPECT_EQ(p.delay_ns, 20'000'000);
}

TEST(DelaylineLinkSpec, ErrorsNameTheItem) {
    LinkParams p;
    try {
        apply_link_spec(p, "delay=10ms,colour=blue");
        FAIL() << "no error";
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("colour"), std::string::npos) << e.what();
    }
    EXPECT_THROW(apply_link_spec(p, "delay"), ParseError);
    EXPECT_THROW(apply_link_spec(p, "delay=soon"), ParseError);
    EXPECT_THROW(apply_link_spec(p, "dist=poisson"), ParseError);
    EXPECT_THROW(apply_link_spec(p, "seed=x1"), ParseError);
    EXPECT_THROW(apply_link_spec(p, "acks=first"), ParseError);
}

TEST(DelaylineLinkSpec, AcknowledgementsSkipOnlyWhereOrderMayChange) {
    LinkParams p;
    apply_link_spec(p, "rate=1mbit,acks=skip");
    EXPECT_TRUE(p.acks_skip);
    EXPECT_THROW(validate(p), ParseError);  // order kept: an acknowledgement cannot pass data
    apply_link_spec(p, "order=any");
    EXPECT_NO_THROW(validate(p));
    EXPECT_NE(describe(p).find("acknowledgements skip it"), std::string::npos) << describe(p);
    apply_link_spec(p, "acks=queue");
    EXPECT_FALSE(p.acks_skip);
}

TEST(DelaylineLinkSpec, Describe) {
    LinkParams p;
    p.delay_ns = 10'000'000;
    p.rate_bps = 1'000'000'000;
    p.loss = 0.05;
    const std::string d = describe(p);
    EXPECT_NE(d.find("delay 10ms"), std::string::npos) << d;
    EXPECT_NE(d.find("rate 1Gbit"), std::string::npos) << d;
    EXPECT_NE(d.find("loss 5%"), std::string::npos) << d;
    EXPECT_NE(d.find("queue limit 1000 packets"), std::string::npos) << d;
}
