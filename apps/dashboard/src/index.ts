// The browser dashboard (DESIGN §2b): mounted at `/` by the composition root (apps/server).
export { createDashboardApp } from "./dashboard-app.tsx";
export { safeReturnTo } from "./return-to.ts";
export type { DashboardOptions } from "./dashboard-app.tsx";
export type { DashboardLogger } from "./dashboard-env.ts";
export { DASHBOARD_CSP } from "./security-headers.ts";
