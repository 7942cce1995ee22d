/** File system errors as an operator reads them: the code and what it means, no stack trace. */
/** `ENOTDIR: a file is in the way` rather than a stack trace. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code
  const meaning: Record<string, string> = {
    ENOTDIR: 'a file is in the way of a directory on that path',
    EEXIST: 'a file, not a directory, of that name exists',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on the device',
    EISDIR: 'it is a directory',
    ENOENT: 'a directory on that path does not exist',
  }
  if (code && meaning[code]) return `${code}: ${meaning[code]}`
  return code ?? (error instanceof Error ? error.message : String(error))
}
