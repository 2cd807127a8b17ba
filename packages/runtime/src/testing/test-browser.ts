/**
 * A browser's navigation for tests of redirect flows (OIDC sign-in): follows 30x answers by
 * hand, keeping cookies per host as a browser does (ports share a host's cookies; attributes
 * other than Max-Age/Expires removal are not modelled), and can stop before requesting a URL.
 */
export class TestBrowser {
  private readonly jar = new Map<string, Map<string, string>>();

  /** The cookies this browser holds for `host` (a host name, without port). */
  cookiesOf(host: string): ReadonlyMap<string, string> {
    return this.jar.get(host) ?? new Map<string, string>();
  }

  /** The Cookie header this browser would send to `url`, or null. */
  cookieHeader(url: string): string | null {
    const cookies = this.jar.get(new URL(url).hostname);
    if (cookies === undefined || cookies.size === 0) return null;
    return [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  /** Keeps the Set-Cookie headers of a response from `url`. */
  store(url: string, response: Response): void {
    const host = new URL(url).hostname;
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    this.jar.set(host, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [key = "", v = ""] = a.split("=").map((s) => s.trim());
        return (key.toLowerCase() === "max-age" && Number(v) <= 0) || (key.toLowerCase() === "expires" && Date.parse(v) < Date.now());
      });
      if (expired) cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  /** One request with this browser's cookies, no redirect followed; keeps what it sets. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url);
    if (cookie !== null) headers.set("Cookie", cookie);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    this.store(url, response);
    return response;
  }

  /**
   * Opens `url` and follows redirects (at most `maxRedirects`). Stops before requesting a URL for
   * which `stopBefore` is true (returning it with no response), or at the first answer that is
   * not a redirect.
   */
  async navigate(url: string, p: { stopBefore?: (url: string) => boolean; maxRedirects?: number } = {}): Promise<{ url: string; response: Response | null; visited: string[] }> {
    const visited: string[] = [];
    let current = url;
    for (let i = 0; i <= (p.maxRedirects ?? 20); i++) {
      if (p.stopBefore?.(current) === true) return { url: current, response: null, visited };
      visited.push(current);
      const response = await this.request(current);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || location === null) return { url: current, response, visited };
      await response.body?.cancel();
      current = new URL(location, current).href;
    }
    throw new Error(`more than ${p.maxRedirects ?? 20} redirects from ${url}`);
  }
}
