/** Keeps a live-map WebSocket open during a benchmark and counts what it receives. */
const url = process.argv[2]!
let messages = 0
const socket = new WebSocket(url)
socket.onmessage = () => {
  messages++
}
await new Promise((resolve, reject) => {
  socket.onopen = resolve
  socket.onerror = reject
})
console.log('ready')
process.on('SIGTERM', () => {
  console.log(JSON.stringify({ messages }))
  process.exit(0)
})
await new Promise(() => {})
export {}
