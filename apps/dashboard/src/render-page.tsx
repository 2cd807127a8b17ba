/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context } from "hono";
import { html } from "hono/html";
import type { Child } from "hono/jsx";
import { Layout, type LayoutProps } from "./components/layout.tsx";
import type { DashboardEnv } from "./dashboard-env.ts";
import type { StaticAssets } from "./static-assets.ts";

/** Renders `body` in the layout as a whole HTML document. */
export function renderPage(c: Context<DashboardEnv>, assets: StaticAssets, layout: Omit<LayoutProps, "assets" | "children">, body: Child, status: number = 200): Response | Promise<Response> {
  const page = (
    <Layout {...layout} assets={assets}>
      {body}
    </Layout>
  );
  return c.html(html`<!DOCTYPE html>${page}`, status as 200);
}
