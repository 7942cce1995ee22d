// Files imported `with { type: 'file' }` resolve to a path: on disk under `bun src/server.ts`,
// inside the executable (`/$bunfs/...`) once compiled by `npm run build`.
declare module '*.csv' {
  const path: string
  export default path
}
