/** Largest request body accepted, counted after decompression (spec §Limits: 256 KB). */
export const MAX_BODY_BYTES = 256 * 1024;

/** Largest compressed request body accepted (spec §Limits: 1 MB), counted as it arrives. */
export const MAX_COMPRESSED_BODY_BYTES = 1024 * 1024;

/** Deepest JSON nesting accepted (DESIGN §2): the top-level object is level 1. */
export const MAX_JSON_DEPTH = 64;
