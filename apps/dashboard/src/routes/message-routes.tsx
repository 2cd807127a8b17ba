/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { MessagePage, MessagesPage } from "../pages/messages-page.tsx";
import type { MessageItemWire, MessageWire, Page } from "../wire.ts";

const DONE: Record<string, string> = { released: "Released: the message is pending again, its delivery count reset.", purged: "Purged: the message is gone." };

/** The messages pages: the filtered list, one message with its thread and timeline, release and purge of dead letters. */
export function registerMessageRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const listPage = async (c: Context<DashboardEnv>, error?: ReturnType<typeof refusalOf>) => {
    const query = {
      state: c.req.query("state") || undefined,
      recipient: c.req.query("recipient") || undefined,
      sender: c.req.query("sender") || undefined,
      template: c.req.query("template") || undefined,
      cursor: c.req.query("cursor") || undefined,
    };
    let messages: Page<MessageItemWire> = { items: [], next_cursor: null };
    let refusal = error;
    try {
      messages = await kit.run<Page<MessageItemWire>>(c, { name: "list_messages", input: { ...query } });
    } catch (err) {
      refusal ??= refusalOf(err, c.get("requestId"));
    }
    return kit.page(c, { title: "Messages", current: "messages", status: refusal?.status }, <MessagesPage messages={messages} query={query} newKey={kit.newKey} error={refusal?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };
  const messagePage = async (c: Context<DashboardEnv>, id: string, error?: ReturnType<typeof refusalOf>) => {
    const message = await kit.run<MessageWire>(c, { name: "get_message", input: { message_id: id } });
    // The reply thread it is in (DESIGN §2c): its first page, oldest first.
    const thread = await kit.run<Page<MessageItemWire>>(c, { name: "get_thread", input: { thread_id: message.envelope.thread_id } });
    return kit.page(c, { title: "Message", current: "messages", status: error?.status }, <MessagePage message={message} thread={thread} newKey={kit.newKey} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };

  app.get("/messages", (c) => listPage(c));
  app.get("/messages/:id", (c) => messagePage(c, c.req.param("id")));
  for (const [action, operation, done] of [
    ["release", "release_dead_letter", "released"],
    ["purge", "purge_dead_letter", "purged"],
  ] as const) {
    app.post(`/dead-letters/:id/${action}`, async (c) => {
      const id = c.req.param("id");
      const form = await readForm(c);
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
}
