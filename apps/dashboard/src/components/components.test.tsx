/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { describe, expect, it } from "vitest";
import { safeReturnTo } from "../return-to.ts";
import { EmptyState } from "./empty-state.tsx";
import { ErrorNotice } from "./error-notice.tsx";
import { LocalTime } from "./local-time.tsx";
import { hrefWith, Pagination } from "./pagination.tsx";

const html = async (node: unknown) => String(await (node as Promise<string>));

describe("dashboard components", () => {
  it("writes an instant in UTC inside <time datetime> for the local-time script, a dash for none", async () => {
    expect(await html(<LocalTime at="2026-11-24T09:30:05.123Z" />)).toBe('<time datetime="2026-11-24T09:30:05.123Z" data-local="">2026-11-24 09:30:05 UTC</time>');
    expect(await html(<LocalTime at={null} />)).toBe("<span>—</span>");
  });

  it("paginates forward keeping the filters; first page drops the cursor; nothing when there is one page", async () => {
    const next = await html(<Pagination path="/messages" query={{ state: "pending", cursor: undefined }} nextCursor="c2" />);
    expect(next).toContain('href="/messages?state=pending&amp;cursor=c2"');
    expect(next).not.toContain("First page");
    const later = await html(<Pagination path="/messages" query={{ state: "held", cursor: "c2" }} nextCursor={null} />);
    expect(later).toContain('href="/messages?state=held"');
    expect(later).toContain("Last page");
    expect(await html(<Pagination path="/messages" query={{}} nextCursor={null} />)).toBe("");
    expect(hrefWith("/a", { x: "", y: undefined })).toBe("/a");
  });

  it("names the SVC_ code of an error and the field it concerns; escapes what it shows", async () => {
    const out = await html(<ErrorNotice error={{ code: "SVC_MALFORMED_REQUEST", message: "<b>bad</b>", details: { field: "friendly_name" } }} requestId="r1" />);
    expect(out).toContain('data-error-code="SVC_MALFORMED_REQUEST"');
    expect(out).toContain("&lt;b&gt;bad&lt;/b&gt;");
    expect(out).toContain("<code>friendly_name</code>");
    expect(await html(<EmptyState title="No messages yet." />)).toContain("data-empty");
  });

  it("returns only to paths of this site after sign-in", () => {
    expect(safeReturnTo("/messages?state=held")).toBe("/messages?state=held");
    for (const bad of [undefined, "https://evil.test/", "//evil.test/", "/\\evil.test", "messages", "/a\nb"]) expect(safeReturnTo(bad)).toBe("/");
  });
});
