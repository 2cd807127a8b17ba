/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { DoneNotice, ErrorNotice, type ShownError } from "./error-notice.tsx";

/**
 * The head of a page: on a record's page the link back to its list, the heading, then how the
 * last action went (what was done, or the refusal).
 */
export function PageHeading(props: { title: Child; back?: { href: string; label: string } | undefined; done?: string | undefined; error?: ShownError | undefined }) {
  return (
    <>
      {props.back === undefined ? null : (
        <p>
          <a href={props.back.href}>{props.back.label}</a>
        </p>
      )}
      <h1>{props.title}</h1>
      {props.done === undefined ? null : <DoneNotice text={props.done} />}
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
    </>
  );
}
