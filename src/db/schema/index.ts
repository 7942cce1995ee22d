export * from './identity'
export * from './master-data'
export * from './platform'
export * from './workspaces'
