/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { LocalTime } from "./local-time.tsx";

/**
 * When an AI account or a credential last authenticated a request ("never" when none did): the
 * record is written at most once a minute, so it may be up to a minute old.
 */
export function LastActive(props: { at: string | null | undefined }) {
  return (
    <span data-last-active={props.at ?? "never"}>
      <LocalTime at={props.at} none="Never" />
    </span>
  );
}
