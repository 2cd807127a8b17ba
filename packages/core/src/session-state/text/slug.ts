// Slugs derived from titles (SESSION-STATE §1: `^[a-z0-9][a-z0-9-]{0,63}$`, derived from the
// title when omitted).

/** A slug derived from a title: lower-case ASCII letters and digits joined by single hyphens, at most 64 characters ("project" when nothing is left). */
export function slugify(text: string): string {
  const base = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/g, "");
  return base.length === 0 ? "project" : base;
}
