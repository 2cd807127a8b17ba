/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context } from "hono";
import { ConfirmPage, type Confirmation } from "./components/confirm.tsx";
import type { NavKey } from "./components/layout.tsx";
import type { DashboardEnv } from "./dashboard-env.ts";
import type { PageKit, refusalOf } from "./page-kit.tsx";

/** A destructive action's confirmation as a page of the layout, under the navigation's `current`. */
export function confirmationPage(kit: PageKit, c: Context<DashboardEnv>, current: NavKey, confirmation: Confirmation, refusal?: ReturnType<typeof refusalOf>): Response | Promise<Response> {
  return kit.page(c, { title: confirmation.title, current, status: refusal?.status }, <ConfirmPage confirmation={confirmation} error={refusal?.error} />);
}
