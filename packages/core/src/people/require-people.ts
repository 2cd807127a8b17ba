import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import type { PeopleConfig } from "./people-settings.ts";

/**
 * The people configuration of the deps.
 * @throws DomainError SVC_SERVICE_UNAVAILABLE when the service runs without one.
 */
export function requirePeople(deps: Pick<CoreDeps, "people">): PeopleConfig {
  if (deps.people === undefined) throw new DomainError("SVC_SERVICE_UNAVAILABLE", "People's sign-in is not configured on this service.");
  return deps.people;
}
