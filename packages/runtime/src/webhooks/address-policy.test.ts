import { describe, expect, it } from "vitest";
import { classifyAddress } from "./address-policy.ts";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.1.1", "link_local"],
    ["fe80::1", "link_local"],
    ["fe80::1%eth0", "link_local"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["ff02::1", "multicast"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:0:127.0.0.1", "loopback"],
    ["64:ff9b::10.0.0.1", "private"],
    ["2002:7f00:1::", "loopback"],
    ["::127.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "documentation"],
    ["2001:db8::1", "documentation"],
    ["198.18.0.1", "benchmark"],
    ["2001::1", "reserved"],
    ["not-an-ip", "not_an_ip"],
  ])("%s is %s", (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::808:808"])("%s is public", (address) => {
    expect(classifyAddress(address)).toBe("public");
  });
});
