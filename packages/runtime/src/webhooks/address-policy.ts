import { isIPv4, isIPv6 } from "node:net";

/** Why an address is not public (the SSRF guard's classes), or `public`. */
export type AddressClass =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "multicast"
  | "broadcast"
  | "metadata"
  | "reserved"
  | "documentation"
  | "benchmark"
  | "not_an_ip";

type V4Rule = [base: number, prefix: number, cls: AddressClass];

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

// Order matters: the first matching rule names the class (metadata before link-local).
const V4_RULES: readonly V4Rule[] = [
  [v4(169, 254, 169, 254), 32, "metadata"],
  [v4(0, 0, 0, 0), 8, "unspecified"],
  [v4(127, 0, 0, 0), 8, "loopback"],
  [v4(10, 0, 0, 0), 8, "private"],
  [v4(172, 16, 0, 0), 12, "private"],
  [v4(192, 168, 0, 0), 16, "private"],
  [v4(169, 254, 0, 0), 16, "link_local"],
  [v4(100, 64, 0, 0), 10, "cgnat"],
  [v4(224, 0, 0, 0), 4, "multicast"],
  [v4(255, 255, 255, 255), 32, "broadcast"],
  [v4(240, 0, 0, 0), 4, "reserved"],
  [v4(192, 0, 0, 0), 24, "reserved"],
  [v4(192, 88, 99, 0), 24, "reserved"],
  [v4(192, 0, 2, 0), 24, "documentation"],
  [v4(198, 51, 100, 0), 24, "documentation"],
  [v4(203, 0, 113, 0), 24, "documentation"],
  [v4(198, 18, 0, 0), 15, "benchmark"],
];

function v4Number(text: string): number {
  const [a, b, c, d] = text.split(".").map(Number) as [number, number, number, number];
  return v4(a, b, c, d);
}

function classifyV4(n: number): AddressClass {
  for (const [base, prefix, cls] of V4_RULES) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if (((n & mask) >>> 0) === base) return cls;
  }
  return "public";
}

/** The 16 bytes of an IPv6 address (zone id dropped, embedded dotted quad accepted). */
function v6Bytes(text: string): Uint8Array {
  let s = text.split("%")[0] ?? text;
  const tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  const maybeV4 = s.slice(lastColon + 1);
  if (maybeV4.includes(".")) {
    const n = v4Number(maybeV4);
    tail.push((n >>> 16) & 0xffff, n & 0xffff);
    s = `${s.slice(0, lastColon + 1)}${tail.length ? "0:0" : ""}`;
  }
  const [head, rest] = s.includes("::") ? (s.split("::") as [string, string]) : [s, null];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => parseInt(h, 16)));
  const headWords = parse(head);
  let words: number[];
  if (rest === null) words = headWords;
  else {
    const restWords = parse(rest);
    words = [...headWords, ...new Array<number>(8 - headWords.length - restWords.length).fill(0), ...restWords];
  }
  if (tail.length) words = [...words.slice(0, 6), ...tail];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = (w >> 8) & 0xff;
    bytes[i * 2 + 1] = w & 0xff;
  });
  return bytes;
}

const startsWith = (b: Uint8Array, prefix: readonly number[], bits: number) => {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const bit = 7 - (i & 7);
    if (((b[byte]! >> bit) & 1) !== ((prefix[byte] ?? 0) >> bit & 1)) return false;
  }
  return true;
};

function embeddedV4(b: Uint8Array, offset: number): number {
  return ((b[offset]! << 24) | (b[offset + 1]! << 16) | (b[offset + 2]! << 8) | b[offset + 3]!) >>> 0;
}

function classifyV6(b: Uint8Array): AddressClass {
  const allZeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (allZeroUpTo(16)) return "unspecified";
  if (allZeroUpTo(15) && b[15] === 1) return "loopback";
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-translated ::ffff:0:a.b.c.d: the IPv4 address decides.
  if (allZeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return classifyV4(embeddedV4(b, 12));
  if (allZeroUpTo(8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0) return classifyV4(embeddedV4(b, 12));
  // IPv4-compatible ::a.b.c.d (deprecated) and the rest of ::/96.
  if (allZeroUpTo(12)) return "reserved";
  // NAT64 64:ff9b::/96 and 64:ff9b:1::/48 reach IPv4 addresses through a translator: refuse private targets.
  if (startsWith(b, [0x00, 0x64, 0xff, 0x9b], 32) && b.slice(4, 12).every((x) => x === 0)) return classifyV4(embeddedV4(b, 12));
  if (startsWith(b, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48)) return "reserved";
  // 6to4 2002::/16 embeds an IPv4 address.
  if (b[0] === 0x20 && b[1] === 0x02) return classifyV4(embeddedV4(b, 2));
  // AWS metadata over IPv6.
  if (startsWith(b, [0xfd, 0x00, 0x0e, 0xc2], 32) && b.slice(4, 14).every((x) => x === 0) && b[14] === 0x02 && b[15] === 0x54) return "metadata";
  if ((b[0]! & 0xfe) === 0xfc) return "private"; // fc00::/7 unique local
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return "link_local"; // fe80::/10
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return "private"; // fec0::/10 site-local (deprecated)
  if (b[0] === 0xff) return "multicast";
  if (startsWith(b, [0x20, 0x01, 0x0d, 0xb8], 32)) return "documentation";
  if (startsWith(b, [0x20, 0x01, 0x00, 0x02, 0x00, 0x00], 48)) return "benchmark";
  if (startsWith(b, [0x20, 0x01, 0x00, 0x00], 32)) return "reserved"; // Teredo
  if (startsWith(b, [0x20, 0x01, 0x00], 23)) return "reserved"; // other IETF protocol assignments 2001::/23
  if (startsWith(b, [0x01, 0x00, 0, 0, 0, 0, 0, 0], 64)) return "reserved"; // discard-only 100::/64
  // Only global unicast 2000::/3 is public.
  if ((b[0]! & 0xe0) !== 0x20) return "reserved";
  return "public";
}

/**
 * The class of an IP address for the SSRF guard: `public` only for globally routable unicast
 * addresses; everything else (loopback, private, link-local, CGNAT, multicast, broadcast, cloud
 * metadata at 169.254.169.254 and fd00:ec2::254, unspecified, documentation, benchmark and other
 * reserved ranges) is refused. IPv4-mapped, IPv4-translated, NAT64 and 6to4 IPv6 addresses are
 * judged by the IPv4 address they carry.
 */
export function classifyAddress(address: string): AddressClass {
  if (isIPv4(address)) return classifyV4(v4Number(address));
  if (isIPv6(address)) return classifyV6(v6Bytes(address));
  return "not_an_ip";
}
