import type { WebhookFailureReason, WebhookTransport } from "@agentq/core";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { classifyAddress, type AddressClass } from "./address-policy.ts";

/** Resolves a host name to every address it has (the shape of `dns.lookup` with `all: true`). */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

/** Options of the HTTP transport. None of them is read from the environment. */
export interface HttpWebhookTransportOptions {
  /**
   * TEST ONLY: lets destinations on loopback (127.0.0.0/8, ::1) through the SSRF guard, every
   * other class stays refused. Passed only by test code; no configuration or environment
   * variable sets it, so a deployment cannot carry it by accident.
   */
  allowLoopbackForTests?: boolean;
  /** Host name resolution (default: the system resolver, `dns.lookup` with `all: true`). */
  resolve?: HostResolver;
}

const systemResolve: HostResolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

class RefusedAddressError extends Error {
  readonly code = "EAGENTQ_NOT_PUBLIC";
  constructor(readonly address: string, readonly addressClass: AddressClass) {
    super(`destination address ${address} is ${addressClass}`);
  }
}

/** Most response bytes read (and dropped) before the connection is closed. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * The webhook transport over node:http/https with the SSRF guard at connect time: the socket's
 * own `lookup` resolves the host, refuses the connection unless EVERY address it resolves to is
 * public (see `classifyAddress`), and hands the socket exactly the addresses it checked, so the
 * address checked is the address connected to (a DNS answer that changes between a check and the
 * connect cannot slip through). An IP-literal host is checked before the request, since sockets
 * skip lookup for literals. One connection per request (no pooled socket outlives the check),
 * no redirect following (a 3xx is returned as a status), a hard timeout over the whole exchange,
 * and the response body is read at most to 64 KB and dropped.
 */
export function createHttpWebhookTransport(options: HttpWebhookTransportOptions = {}): WebhookTransport {
  const resolve = options.resolve ?? systemResolve;
  const allowed = (address: string) => {
    const cls = classifyAddress(address);
    return cls === "public" || (cls === "loopback" && options.allowLoopbackForTests === true) ? null : cls;
  };

  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = typeof lookupOptions.family === "number" ? lookupOptions.family : 0;
        const usable = addresses.filter((a) => family === 0 || a.family === family);
        if (usable.length === 0) {
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 4);
          return;
        }
        for (const a of addresses) {
          const refused = allowed(a.address);
          if (refused !== null) {
            callback(new RefusedAddressError(a.address, refused), "", 4);
            return;
          }
        }
        if (lookupOptions.all) (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, "", 4),
    );
  };

  return {
    post(p) {
      return new Promise((settle) => {
        let done = false;
        const finish = (r: { kind: "response"; status: number } | { kind: "failed"; reason: WebhookFailureReason; detail?: string }) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          settle(r);
        };
        let url: URL;
        try {
          url = new URL(p.url);
        } catch {
          finish({ kind: "failed", reason: "invalid_url" });
          return;
        }
        const timer = setTimeout(() => {
          finish({ kind: "failed", reason: "timeout" });
          req?.destroy();
        }, p.timeoutMs);
        if (url.protocol !== "http:" && url.protocol !== "https:") {
          finish({ kind: "failed", reason: "invalid_url" });
          return;
        }
        const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
        if (isIP(host) !== 0) {
          const refused = allowed(host);
          if (refused !== null) {
            finish({ kind: "failed", reason: "destination_not_public", detail: refused });
            return;
          }
        }
        const body = Buffer.from(p.body, "utf8");
        const request = url.protocol === "https:" ? https.request : http.request;
        const req = request(url, {
          method: "POST",
          agent: false,
          lookup: guardedLookup,
          headers: { ...p.headers, "content-type": "application/json", "content-length": String(body.length), "user-agent": "agentq-webhooks/1" },
        });
        req.on("response", (res) => {
          const status = res.statusCode ?? 0;
          let seen = 0;
          res.on("data", (chunk: Buffer) => {
            seen += chunk.length;
            if (seen > MAX_RESPONSE_BYTES) res.destroy();
          });
          res.on("error", () => undefined);
          res.on("close", () => req.destroy());
          finish({ kind: "response", status });
        });
        req.on("error", (err: NodeJS.ErrnoException) => {
          if (err instanceof RefusedAddressError || err.code === "EAGENTQ_NOT_PUBLIC") finish({ kind: "failed", reason: "destination_not_public", detail: (err as RefusedAddressError).addressClass });
          else if (err.code === "ENOTFOUND" || err.code === "EAI_AGAIN" || err.code === "ENODATA") finish({ kind: "failed", reason: "dns_failure" });
          else finish({ kind: "failed", reason: "connection_failed", ...(err.code === undefined ? {} : { detail: err.code }) });
        });
        req.end(body);
      });
    },
  };
}
