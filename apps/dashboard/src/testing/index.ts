// Test support of the dashboard, exported as "@agentq/dashboard/testing": the Chromium harness.
export { CHROMIUM_PATH, launchChromium, overflowsSideways, saveDocScreenshot, seriousAxeViolations, watchPage } from "./browser.ts";
export type { AxeViolation, PageProblems } from "./browser.ts";
export { expectCleanPage } from "./page-checks.ts";
export { CHART_PLOT, chartPoints } from "./chart-points.ts";
export { NAV } from "../components/layout.tsx";
