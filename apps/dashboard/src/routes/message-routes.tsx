/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { bulkDoneText, registerDeadLetterRoutes } from "./dead-letter-routes.tsx";
import { refusalOf, viewerOf, type PageKit } from "../page-kit.tsx";
import { MessagePage, MessagesPage, PayloadPage } from "../pages/messages-page.tsx";
import type { MessageItemWire, MessageWire, Page, PayloadWire } from "../wire.ts";

const DONE: Record<string, string> = { released: "Released: the message is pending again, its delivery count reset.", purged: "Purged: the message is gone." };

/** What the page says after an action: a fixed sentence, or a bulk action's counts. */
function doneText(c: Context<DashboardEnv>): string | undefined {
  return DONE[c.req.query("done") ?? ""] ?? bulkDoneText(c.req.query("done"), c.req.query("count"), c.req.query("skipped"));
}

/** The messages pages: the filtered list, one message with its reply thread, timeline and payload; the dead letters' actions (dead-letter-routes.tsx). */
export function registerMessageRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const listPage = async (c: Context<DashboardEnv>, error?: ReturnType<typeof refusalOf>) => {
    const query = {
      search: c.req.query("search")?.trim() || undefined,
      state: c.req.query("state") || undefined,
      recipient: c.req.query("recipient") || undefined,
      sender: c.req.query("sender") || undefined,
      template: c.req.query("template") || undefined,
      cursor: c.req.query("cursor") || undefined,
      back: c.req.query("back") || undefined,
    };
    let messages: Page<MessageItemWire> = { items: [], next_cursor: null };
    let refusal = error;
    try {
      const { back: _back, ...input } = query;
      messages = await kit.run<Page<MessageItemWire>>(c, { name: "list_messages", input });
    } catch (err) {
      refusal ??= refusalOf(err, c.get("requestId"));
    }
    return kit.page(c, { title: "Messages", current: "messages", status: refusal?.status }, <MessagesPage messages={messages} query={query} newKey={kit.newKey} administers={viewerOf(c.get("principal"))?.role !== "viewer"} error={refusal?.error} done={doneText(c)} />);
  };
  const messagePage = async (c: Context<DashboardEnv>, id: string, error?: ReturnType<typeof refusalOf>) => {
    const message = await kit.run<MessageWire>(c, { name: "get_message", input: { message_id: id } });
    // The reply thread it is in (DESIGN §2c): its first page, oldest first.
    const thread = await kit.run<Page<MessageItemWire>>(c, { name: "get_thread", input: { thread_id: message.envelope.thread_id } });
    const administers = viewerOf(c.get("principal"))?.role !== "viewer";
    return kit.page(c, { title: "Message", current: "messages", status: error?.status }, <MessagePage message={message} thread={thread} newKey={kit.newKey} administers={administers} now={kit.deps.clock.now()} error={error?.error} done={doneText(c)} />);
  };

  app.get("/messages", (c) => listPage(c));
  app.get("/messages/:id", (c) => messagePage(c, c.req.param("id")));
  // Reading a payload is an audit row (get_message_payload); a viewer's session gets 403.
  app.get("/messages/:id/payload", async (c) => {
    const payload = await kit.run<PayloadWire>(c, { name: "get_message_payload", input: { message_id: c.req.param("id") } });
    return kit.page(c, { title: "Payload", current: "messages" }, <PayloadPage payload={payload} />);
  });
  registerDeadLetterRoutes(app, kit, listPage);
}
