/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { EmptyState } from "../components/empty-state.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { TableRegion } from "../components/table-region.tsx";
import type { Page } from "../wire.ts";

/** A project (session-state records, SESSION-STATE.md). */
export interface ProjectWire {
  id: string;
  name: string;
  slug: string;
  description: string;
  repository_url: string | null;
  state: string;
  is_default: boolean;
  created_at: string;
  created_by: { friendly_name: string };
}

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
      {props.projects.items.length === 0 ? (
        <EmptyState title="No projects yet.">
          <p>An agent with the manage_projects scope creates one (or the first build session does).</p>
        </EmptyState>
      ) : (
        <TableRegion label="Projects">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Slug</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {props.projects.items.map((p) => (
                <tr data-project={p.slug}>
                  <td>
                    <a href={`/projects/${p.id}`}>{p.name}</a>
                    {p.is_default ? <span class="hint"> (default)</span> : null}
                  </td>
                  <td>
                    <code>{p.slug}</code>
                  </td>
                  <td>
                    <StateBadge state={p.state} />
                  </td>
                  <td>
                    <LocalTime at={p.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <Pagination path="/projects" query={props.query} nextCursor={props.projects.next_cursor} />
    </>
  );
}

/** One project: its latest build sessions, decisions and backlog items. */
export function ProjectPage(props: { project: ProjectWire; sessions: BuildSessionWire[]; decisions: DecisionWire[]; backlog: BacklogItemWire[]; counts: Record<string, number> }) {
  const p = props.project;
  return (
    <>
      <p>
        <a href="/projects">Projects</a>
      </p>
      <h1>{p.name}</h1>
      <section class="panel">
        <dl class="facts">
          <dt>Slug</dt>
          <dd>
            <code>{p.slug}</code>
          </dd>
          <dt>State</dt>
          <dd>
            <StateBadge state={p.state} />
          </dd>
          <dt>Repository</dt>
          <dd>{p.repository_url ?? "—"}</dd>
          <dt>Description</dt>
          <dd>{p.description === "" ? "—" : p.description}</dd>
        </dl>
      </section>
      <p class="actions">
        <a href={`/lessons?project=${p.id}`}>Its lessons</a>
        <a href={`/rules?project=${p.id}`}>Its rules</a>
      </p>
      <h2>Build sessions</h2>
      {props.sessions.length === 0 ? (
        <EmptyState title="No build sessions yet." />
      ) : (
        <TableRegion label="Build sessions">
          <table>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">By</th>
                <th scope="col">State</th>
                <th scope="col">Started</th>
                <th scope="col">Last heard</th>
              </tr>
            </thead>
            <tbody>
              {props.sessions.map((s) => (
                <tr data-session={s.id}>
                  <td>{s.title}</td>
                  <td>{s.created_by.friendly_name}</td>
                  <td>
                    <StateBadge state={s.state} /> <span class="hint">{s.liveness}</span>
                  </td>
                  <td>
                    <LocalTime at={s.started_at} />
                  </td>
                  <td>
                    <LocalTime at={s.last_ping_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <h2>Decisions</h2>
      {props.decisions.length === 0 ? (
        <EmptyState title="No decisions recorded yet." />
      ) : (
        <TableRegion label="Decisions">
          <table>
            <thead>
              <tr>
                <th scope="col" class="num">#</th>
                <th scope="col">Title</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col">By</th>
                <th scope="col">Decided</th>
              </tr>
            </thead>
            <tbody>
              {props.decisions.map((d) => (
                <tr data-decision={d.id}>
                  <td class="num">{d.number}</td>
                  <td>{d.title}</td>
                  <td>{d.kind}</td>
                  <td>
                    <StateBadge state={d.status} />
                  </td>
                  <td>{d.created_by.friendly_name}</td>
                  <td>
                    <LocalTime at={d.decided_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
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
      {props.backlog.length === 0 ? (
        <EmptyState title="The backlog is empty." />
      ) : (
        <TableRegion label="Backlog">
          <table>
            <thead>
              <tr>
                <th scope="col" class="num">#</th>
                <th scope="col">Title</th>
                <th scope="col">Kind</th>
                <th scope="col" class="num">Priority</th>
                <th scope="col">Status</th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              {props.backlog.map((b) => (
                <tr data-backlog={b.id}>
                  <td class="num">{b.number}</td>
                  <td>{b.title}</td>
                  <td>{b.kind}</td>
                  <td class="num">{b.priority}</td>
                  <td>
                    <StateBadge state={b.status} />
                    {b.stale ? <span class="badge warn">stale</span> : null}
                  </td>
                  <td>
                    <LocalTime at={b.last_activity_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </>
  );
}
