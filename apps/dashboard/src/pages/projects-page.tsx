/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { DataTable } from "../components/data-table.tsx";
import { Facts } from "../components/facts.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import type { ProjectView } from "@agentq/core";
import type { Page } from "../wire.ts";

/** A project (session-state records, SESSION-STATE.md): the core's own wire type. */
export type ProjectWire = ProjectView;

/** A build session as a list shows it. */
export interface BuildSessionWire {
  id: string;
  title: string;
  state: string;
  liveness: string;
  started_at: string;
  last_ping_at: string;
  created_by: { friendly_name: string };
}

/** A decision-log entry as a list shows it. */
export interface DecisionWire {
  id: string;
  number: number;
  kind: string;
  status: string;
  title: string;
  decided_at: string;
  created_by: { friendly_name: string };
}

/** A backlog item as a list shows it. */
export interface BacklogItemWire {
  id: string;
  number: number;
  title: string;
  kind: string;
  priority: number;
  status: string;
  stale: boolean;
  last_activity_at: string;
}

/** The workspace's projects: what its agents record about their work. */
export function ProjectsPage(props: { projects: Page<ProjectWire>; query: Record<string, string | undefined> }) {
  return (
    <>
      <h1>Projects</h1>
      <p>What the workspace's agents record about their work: build sessions, decisions and the backlog, by project.</p>
      <DataTable
        label="Projects"
        rows={props.projects.items}
        empty={{ title: "No projects yet.", children: <p>An agent with the manage_projects scope creates one (or the first build session does).</p> }}
        rowAttrs={(p) => ({ "data-project": p.slug })}
        columns={[
          {
            head: "Name",
            cell: (p) => (
              <>
                <a href={`/projects/${p.id}`}>{p.name}</a>
                {p.is_default ? <span class="hint"> (default)</span> : null}
              </>
            ),
          },
          { head: "Slug", cell: (p) => <code>{p.slug}</code> },
          { head: "State", cell: (p) => <StateBadge state={p.state} /> },
          { head: "Created", cell: (p) => <LocalTime at={p.created_at} /> },
        ]}
      />
      <Pagination path="/projects" query={props.query} nextCursor={props.projects.next_cursor} />
    </>
  );
}

/** One project: its latest build sessions, decisions and backlog items. */
export function ProjectPage(props: { project: ProjectWire; sessions: BuildSessionWire[]; decisions: DecisionWire[]; backlog: BacklogItemWire[]; counts: Record<string, number> }) {
  const p = props.project;
  return (
    <>
      <PageHeading title={p.name} back={{ href: "/projects", label: "Projects" }} />
      <section class="panel">
        <Facts
          facts={[
            { term: "Slug", value: <code>{p.slug}</code> },
            { term: "State", value: <StateBadge state={p.state} /> },
            { term: "Repository", value: p.repository_url ?? "—" },
            { term: "Description", value: p.description === "" ? "—" : p.description },
          ]}
        />
      </section>
      <p class="actions">
        <a href={`/lessons?project=${p.id}`}>Its lessons</a>
        <a href={`/rules?project=${p.id}`}>Its rules</a>
      </p>
      <h2>Build sessions</h2>
      <DataTable
        label="Build sessions"
        rows={props.sessions}
        empty={{ title: "No build sessions yet." }}
        rowAttrs={(s) => ({ "data-session": s.id })}
        columns={[
          { head: "Title", cell: (s) => <a href={`/projects/${props.project.id}/sessions/${s.id}`}>{s.title}</a> },
          { head: "By", cell: (s) => s.created_by.friendly_name },
          {
            head: "State",
            cell: (s) => (
              <>
                <StateBadge state={s.state} /> <span class="hint">{s.liveness}</span>
              </>
            ),
          },
          { head: "Started", cell: (s) => <LocalTime at={s.started_at} /> },
          { head: "Last heard", cell: (s) => <LocalTime at={s.last_ping_at} /> },
        ]}
      />
      <h2>Decisions</h2>
      <DataTable
        label="Decisions"
        rows={props.decisions}
        empty={{ title: "No decisions recorded yet." }}
        rowAttrs={(d) => ({ "data-decision": d.id })}
        columns={[
          { head: "#", num: true, cell: (d) => d.number },
          { head: "Title", cell: (d) => <a href={`/projects/${props.project.id}/decisions/${d.id}`}>{d.title}</a> },
          { head: "Kind", cell: (d) => d.kind },
          { head: "Status", cell: (d) => <StateBadge state={d.status} /> },
          { head: "By", cell: (d) => d.created_by.friendly_name },
          { head: "Decided", cell: (d) => <LocalTime at={d.decided_at} /> },
        ]}
      />
      <h2>Backlog</h2>
      <ul class="tiles" aria-label="Backlog by status">
        {["untriaged", "open", "in_progress", "resolved", "dismissed", "stale"].map((s) => (
          <li class="tile">
            <span class="count" data-backlog-count={s}>
              {props.counts[s] ?? 0}
            </span>
            <span class="what">{s.replaceAll("_", " ")}</span>
          </li>
        ))}
      </ul>
      <DataTable
        label="Backlog"
        rows={props.backlog}
        empty={{ title: "The backlog is empty." }}
        rowAttrs={(b) => ({ "data-backlog": b.id })}
        columns={[
          { head: "#", num: true, cell: (b) => b.number },
          { head: "Title", cell: (b) => <a href={`/projects/${props.project.id}/backlog/${b.id}`}>{b.title}</a> },
          { head: "Kind", cell: (b) => b.kind },
          { head: "Priority", num: true, cell: (b) => b.priority },
          {
            head: "Status",
            cell: (b) => (
              <>
                <StateBadge state={b.status} />
                {b.stale ? <span class="badge warn">stale</span> : null}
              </>
            ),
          },
          { head: "Last activity", cell: (b) => <LocalTime at={b.last_activity_at} /> },
        ]}
      />
    </>
  );
}
