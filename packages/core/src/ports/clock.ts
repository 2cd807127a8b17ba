// The time source (STYLE: time and ids are inputs). Every port's general rules: src/ports.ts.

/** The time source of the core. The database clock stays the authority for leases. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}
