/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ErrorNotice, type ShownError } from "../components/error-notice.tsx";

/** A whole page for a refused or failed request: the SVC_ code, the message, the request id. */
export function ErrorPage(props: { error: ShownError; requestId: string; signedIn: boolean }) {
  return (
    <div class={props.signedIn ? undefined : "narrow"}>
      <h1>Something went wrong</h1>
      <ErrorNotice error={props.error} requestId={props.requestId} />
      <p>
        <a href="/">Back to the overview</a>
      </p>
    </div>
  );
}
