/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import { ConfirmPage, confirmed, type Confirmation } from "./components/confirm.tsx";
import type { NavKey } from "./components/layout.tsx";
import type { DashboardEnv } from "./dashboard-env.ts";
import { readForm, type FormInput } from "./form-input.ts";
import { refusalOf, type PageKit } from "./page-kit.tsx";

/** A destructive action's confirmation as a page of the layout, under the navigation's `current`. */
export function confirmationPage(kit: PageKit, c: Context<DashboardEnv>, current: NavKey, confirmation: Confirmation, refusal?: ReturnType<typeof refusalOf>): Response | Promise<Response> {
  return kit.page(c, { title: confirmation.title, current, status: refusal?.status }, <ConfirmPage confirmation={confirmation} error={refusal?.error} />);
}

/** One destructive action of a page: where it posts, its question, what it does, and how a refusal shows. */
export interface ConfirmedAction {
  /** The route of both the question (GET) and the action (POST), e.g. `/credentials/:id/revoke`. */
  path: string;
  /** The navigation's entry the question is shown under. */
  current: NavKey;
  /** The question, for the path's `:id` ("" when the path has none). */
  question: (c: Context<DashboardEnv>, id: string) => Confirmation | Promise<Confirmation>;
  /** Runs the confirmed action: where to go after it (a 303), or the response itself. */
  act: (c: Context<DashboardEnv>, form: FormInput) => Promise<string | Response>;
  /** The page a refusal of the action is shown on. */
  refused: (c: Context<DashboardEnv>, refusal: ReturnType<typeof refusalOf>) => Response | Promise<Response>;
}

/**
 * The two routes of a destructive action (DESIGN §2b, issue 30): GET `path` asks, on a page of its
 * own; POST `path` without the confirmation field asks the same (a bare POST acts on nothing), and
 * with it acts.
 */
export function registerConfirmedAction(app: Hono<DashboardEnv>, kit: PageKit, action: ConfirmedAction): void {
  app.get(action.path, async (c) => confirmationPage(kit, c, action.current, await action.question(c, c.req.param("id") ?? "")));
  app.post(action.path, async (c) => {
    const form = await readForm(c);
    if (!confirmed(form)) return confirmationPage(kit, c, action.current, await action.question(c, c.req.param("id") ?? ""));
    try {
      const done = await action.act(c, form);
      return typeof done === "string" ? c.redirect(done, 303) : done;
    } catch (err) {
      return action.refused(c, refusalOf(err, c.get("requestId")));
    }
  });
}

/** An action that runs one catalogue operation on the path's `:id` with the form's Idempotency-Key, then goes to `done`. */
export function runsOperation(kit: PageKit, name: string, input: (id: string) => Record<string, unknown>, done: string): ConfirmedAction["act"] {
  return async (c, form) => {
    await kit.run(c, { name, input: input(c.req.param("id") ?? ""), idempotencyKey: form.text("idempotency_key") });
    return done;
  };
}
