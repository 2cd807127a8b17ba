/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { DomainError, type PersonPrincipal } from "@agentq/core";
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm, type FormInput } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { NoticePage, NoticesPage, type CounterNoticeValues } from "../pages/notices-page.tsx";
import { needsStepUp, stepUpFresh, stepUpLocation } from "../step-up-redirect.ts";
import type { NoticeWire, Page } from "../wire.ts";

const DONE: Record<string, string> = { contested: "Filed: the decision is contested. The operator and, for a DMCA notice, the claimant are told." };

/** The form's fields as the counter-notice's input: only the elements filled in (a missing one is named by the 400). */
function counterNoticeInput(form: FormInput): CounterNoticeValues {
  const text = (name: string) => (form.text(name) === "" ? undefined : form.text(name));
  const checked = (name: string) => (form.text(name) === "true" ? true : undefined);
  const input: CounterNoticeValues = { explanation: text("explanation"), signature: text("signature"), material: text("material"), mistake_statement: checked("mistake_statement"), name: text("name"), address: text("address"), phone: text("phone"), jurisdiction_consent: checked("jurisdiction_consent") };
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

/**
 * The notices of the workspace (DESIGN §2b): the list and one notice through the catalogue's
 * list_notices and get_notice (the REST/MCP executor), and the counter-notice through
 * file_counter_notice, the operation of POST /v1/notices/{id}/counter-notice (an owner with a
 * fresh step-up). A 401 SVC_STEP_UP_REQUIRED sends the person to the step-up page, which
 * brings them back to the notice.
 */
export function registerNoticeRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const person = (c: Context<DashboardEnv>) => c.get("principal") as PersonPrincipal;
  const noticePage = async (c: Context<DashboardEnv>, id: string, values: CounterNoticeValues = {}, error?: ReturnType<typeof refusalOf>) => {
    const notice = await kit.run<NoticeWire>(c, { name: "get_notice", input: { notice_id: id } });
    // Anyone may read a notice's public view (state and dates); this page is for the workspace the notice was disclosed to.
    if (!("disclosed_at" in notice)) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "No notice with this id was disclosed to your workspace.", { resource: "Notice" });
    const p = person(c);
    const viewer = { role: p.person.role, steppedUp: stepUpFresh(p.session.stepUpUntil, kit.deps.clock.now()) };
    return kit.page(c, { title: "Notice", current: "notices", status: error?.status }, <NoticePage notice={notice} viewer={viewer} values={values} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };

  app.get("/notices", async (c) => {
    const query = { cursor: c.req.query("cursor") || undefined };
    const notices = await kit.run<Page<NoticeWire>>(c, { name: "list_notices", input: { ...query } });
    return kit.page(c, { title: "Notices", current: "notices" }, <NoticesPage notices={notices} query={query} />);
  });
  app.get("/notices/:id", (c) => noticePage(c, c.req.param("id")));
  app.post("/notices/:id/counter-notice", async (c) => {
    const id = c.req.param("id");
    const values = counterNoticeInput(await readForm(c));
    try {
      await kit.run(c, { name: "file_counter_notice", input: { ...values, notice_id: id } });
      return c.redirect(`/notices/${encodeURIComponent(id)}?done=contested`, 303);
    } catch (err) {
      if (needsStepUp(err)) return c.redirect(stepUpLocation(`/notices/${encodeURIComponent(id)}`), 303);
      return noticePage(c, id, values, refusalOf(err, c.get("requestId")));
    }
  });
}
