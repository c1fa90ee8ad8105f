/** chrono-node's reader, required by ./when.ts only when a phrase reaches it (loading chrono costs a CLI call a tenth of its start). */
export { parse } from 'chrono-node';
