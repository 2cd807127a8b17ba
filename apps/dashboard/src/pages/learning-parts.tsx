/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { EmptyState } from "../components/empty-state.tsx";
import { hrefWith } from "../components/pagination.tsx";
import type { ProjectWire } from "./projects-page.tsx";

/** One select of a filter form: its query parameter, label and choices (value "" is "any"). */
export interface FilterSelect {
  name: string;
  label: string;
  choices: readonly { value: string; label: string }[];
  value: string;
}

/**
 * The filter form of the lessons, candidates and rules lists: the project (these records are a
 * project's) and the list's own selects. With JavaScript the list follows the selects as they
 * change (htmx); without, the Show button submits them.
 */
export function LearningFilters(props: { path: string; projects: ProjectWire[]; projectId: string; selects: FilterSelect[] }) {
  return (
    <form class="filters panel" method="get" action={props.path} hx-get={props.path} hx-trigger="change, submit" hx-push-url="true">
      <div>
        <label for="project">Project</label>
        <select id="project" name="project">
          {props.projects.map((p) => (
            <option value={p.id} selected={p.id === props.projectId}>
              {p.state === "archived" ? `${p.name} (archived)` : p.name}
            </option>
          ))}
        </select>
      </div>
      {props.selects.map((s) => (
        <div>
          <label for={s.name}>{s.label}</label>
          <select id={s.name} name={s.name}>
            {s.choices.map((o) => (
              <option value={o.value} selected={o.value === s.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
      ))}
      <div>
        <button type="submit" class="secondary">
          Show
        </button>
      </div>
    </form>
  );
}

/** Choices from a list of states, with "any" first when `anyValue` is given. */
export function choicesOf(values: readonly string[], anyValue?: string): { value: string; label: string }[] {
  return [...(anyValue === undefined ? [] : [{ value: anyValue, label: "any" }]), ...values.map((v) => ({ value: v, label: v.replaceAll("_", " ") }))];
}

/** Lessons and their candidates are one section: links between the two lists of a project. */
export function LessonTabs(props: { current: "lessons" | "candidates"; projectId: string; pending: number }) {
  return (
    <nav class="actions" aria-label="Lessons and candidates">
      <a href={hrefWith("/lessons", { project: props.projectId })} aria-current={props.current === "lessons" ? "page" : undefined}>
        Lessons
      </a>
      <a href={hrefWith("/lesson-candidates", { project: props.projectId })} aria-current={props.current === "candidates" ? "page" : undefined}>
        Candidates ({props.pending} pending)
      </a>
    </nav>
  );
}

/** Who changes these records: the agents, through the catalogue; a person's session reads them. */
export function AgentsWrite(props: { tools: string }) {
  return (
    <p class="hint" data-agents-write="">
      Agents keep these records with a credential holding <code>write_session_state</code> ({props.tools}); a person's session reads them.
    </p>
  );
}

/** The workspace has no project yet, so it has none of these records. */
export function NoProjects(props: { what: string }) {
  return (
    <EmptyState title={`No ${props.what} yet: the workspace has no project.`}>
      <p>An agent with the manage_projects scope creates one (or the first build session does).</p>
    </EmptyState>
  );
}

/** Text as a page shows markdown: the source, preserved, never rendered as HTML. */
export function MarkdownText(props: { text: string; label: string }) {
  if (props.text.trim() === "") return null;
  return (
    <section aria-label={props.label}>
      <h2>{props.label}</h2>
      <pre>{props.text}</pre>
    </section>
  );
}
