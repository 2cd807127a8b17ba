/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { isDomainError, malformed } from "@agentq/core";
import type { Context, Hono } from "hono";
import { confirmed, type Confirmation } from "../components/confirm.tsx";
import { hrefWith } from "../components/pagination.tsx";
import { confirmationPage } from "../confirm-step.tsx";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import type { MessageItemWire, MessageWire, Page } from "../wire.ts";

/** The most dead letters one bulk release or purge acts on (the rest stay for the next one). */
export const BULK_MAX = 500;
/** The filters a bulk action takes from the Messages page (the state is always dead_lettered). */
const BULK_FILTERS = ["search", "recipient", "sender", "template"] as const;

type ListPage = (c: Context<DashboardEnv>, error?: ReturnType<typeof refusalOf>) => Response | Promise<Response>;

/** The sentence after a bulk action ("Released 7 dead letters."), from the redirect's parameters. */
export function bulkDoneText(done: string | undefined, count: string | undefined, skipped: string | undefined): string | undefined {
  const verb = done === "bulk_released" ? "Released" : done === "bulk_purged" ? "Purged" : null;
  if (verb === null || !/^\d{1,4}$/.test(count ?? "")) return undefined;
  const n = Number(count);
  const notDone = /^\d{1,4}$/.test(skipped ?? "") ? Number(skipped) : 0;
  return `${verb} ${n} dead ${n === 1 ? "letter" : "letters"}.${notDone === 0 ? "" : ` ${notDone} had already changed (released, purged or gone) and were left as they were.`}`;
}

/**
 * Release (back to pending, count reset) and purge of dead letters, one or every one a filter of
 * the Messages page selects. Purging asks first, on a page of its own; a bulk action shows how
 * many it will act on before it is confirmed, and acts on exactly the ones it showed (at most
 * BULK_MAX), each through the same operation as REST (an audit row each).
 */
export function registerDeadLetterRoutes(app: Hono<DashboardEnv>, kit: PageKit, listPage: ListPage): void {
  const purgeConfirmation = async (c: Context<DashboardEnv>, id: string): Promise<Confirmation> => {
    const m = await kit.run<MessageWire>(c, { name: "get_message", input: { message_id: id } });
    return {
      title: "Purge this dead letter?",
      consequences: (
        <>
          <p>
            The message <code>{id}</code> from <strong>{m.envelope.sender.friendly_name}</strong> to <strong>{m.envelope.recipient.friendly_name}</strong> ({m.envelope.template}) is deleted for good, its payload with it; its audit rows stay.
          </p>
          <p>Releasing it instead would deliver it again.</p>
        </>
      ),
      action: `/dead-letters/${id}/purge`,
      button: "Purge it",
      cancel: `/messages/${id}`,
      idempotencyKey: kit.newKey(),
    };
  };
  app.get("/dead-letters/:id/purge", async (c) => confirmationPage(kit, c, "messages", await purgeConfirmation(c, c.req.param("id"))));

  for (const [action, operation, done] of [
    ["release", "release_dead_letter", "released"],
    ["purge", "purge_dead_letter", "purged"],
  ] as const) {
    app.post(`/dead-letters/:id/${action}`, async (c) => {
      const id = c.req.param("id");
      const form = await readForm(c);
      if (action === "purge" && !confirmed(form)) return confirmationPage(kit, c, "messages", await purgeConfirmation(c, id));
      try {
        await kit.run(c, { name: operation, input: { message_id: id }, idempotencyKey: form.text("idempotency_key") });
      } catch (err) {
        return listPage(c, refusalOf(err, c.get("requestId")));
      }
      // Back to the message (unless it was purged) or to the dead letters.
      const back = form.text("back") === `/messages/${id}` && action === "release" ? `/messages/${id}` : "/messages?state=dead_lettered";
      return c.redirect(`${back}${back.includes("?") ? "&" : "?"}done=${done}`, 303);
    });
  }

  // Bulk: the dead letters the Messages page's filters select.
  const selected = async (c: Context<DashboardEnv>, filters: Record<string, string | undefined>): Promise<{ ids: string[]; more: boolean }> => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await kit.run<Page<MessageItemWire>>(c, { name: "list_messages", input: { ...filters, state: "dead_lettered", limit: 100, ...(cursor === undefined ? {} : { cursor }) } });
      ids.push(...page.items.map((m) => m.envelope.message_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined && ids.length < BULK_MAX);
    return { ids: ids.slice(0, BULK_MAX), more: ids.length > BULK_MAX || cursor !== undefined };
  };
  for (const [action, operation, done] of [
    ["release", "release_dead_letter", "bulk_released"],
    ["purge", "purge_dead_letter", "bulk_purged"],
  ] as const) {
    app.get(`/dead-letters/${action}`, async (c) => {
      const filters = Object.fromEntries(BULK_FILTERS.map((f) => [f, c.req.query(f)?.trim() || undefined]));
      const listHref = hrefWith("/messages", { ...filters, state: "dead_lettered" });
      const { ids, more } = await selected(c, filters);
      const n = ids.length;
      const confirmation: Confirmation = {
        title: n === 0 ? "No dead letters match" : `${action === "release" ? "Release" : "Purge"} ${n} dead ${n === 1 ? "letter" : "letters"}?`,
        consequences: (
          <>
            <p data-bulk-count={String(n)}>
              {n === 0
                ? "The filter selects no dead letters: there is nothing to do."
                : action === "release"
                  ? `${n} dead ${n === 1 ? "letter goes" : "letters go"} back to pending, each delivery count reset, and will be delivered again.`
                  : `${n} dead ${n === 1 ? "letter is" : "letters are"} deleted for good, payloads with them; their audit rows stay.`}
              {more ? ` Only the first ${BULK_MAX} the filter selects: repeat for the rest.` : ""}
            </p>
            {n === 0 ? null : (
              <ul class="bulk-ids">
                {ids.slice(0, 10).map((id) => (
                  <li>
                    <a href={`/messages/${id}`}>
                      <code>{id}</code>
                    </a>
                  </li>
                ))}
                {n > 10 ? <li>and {n - 10} more</li> : null}
              </ul>
            )}
          </>
        ),
        action: `/dead-letters/${action}`,
        button: `${action === "release" ? "Release" : "Purge"} ${n === 1 ? "it" : `all ${n}`}`,
        cancel: listHref,
        hidden: { message_id: ids, back: listHref },
      };
      return confirmationPage(kit, c, "messages", confirmation);
    });
    app.post(`/dead-letters/${action}`, async (c) => {
      const form = await readForm(c);
      const ids = form.all("message_id");
      // A bare POST (no confirmation) is sent to the question for the filter it came from, and acts on nothing.
      if (!confirmed(form)) {
        const from = new URLSearchParams(form.text("back").startsWith("/messages?") ? form.text("back").slice("/messages?".length) : "");
        return c.redirect(hrefWith(`/dead-letters/${action}`, Object.fromEntries(BULK_FILTERS.map((f) => [f, from.get(f) ?? undefined]))), 303);
      }
      if (ids.length === 0) return c.redirect("/messages?state=dead_lettered", 303);
      if (ids.length > BULK_MAX) throw malformed(`At most ${BULK_MAX} dead letters at once.`, { field: "message_id", max: BULK_MAX });
      let count = 0;
      let skipped = 0;
      for (const id of ids) {
        try {
          await kit.run(c, { name: operation, input: { message_id: id } });
          count += 1;
        } catch (err) {
          // One that changed since the page was shown (released, purged: 409; gone or another
          // workspace's id: 404) is left; any other refusal (a viewer's 403) ends the action.
          if (!isDomainError(err) || (err.status !== 404 && err.status !== 409)) throw err;
          skipped += 1;
        }
      }
      const back = form.text("back").startsWith("/messages?") ? form.text("back") : "/messages?state=dead_lettered";
      return c.redirect(hrefWith(back.split("?")[0] ?? "/messages", { ...Object.fromEntries(new URLSearchParams(back.split("?")[1] ?? "")), done, count: String(count), skipped: String(skipped) }), 303);
    });
  }
}
