import net from 'node:net'

/**
 * A client that keeps its connection open after an answer, as HTTP/1.1
 * clients do: one GET on a socket of its own, read up to the end of the
 * answer's head. The socket stays open until the server closes it (`ended`)
 * or the test calls `close`, so a test can see whether a refusal still holds
 * a connection.
 */
export interface KeptAliveAnswer {
  status: number
  /** Header names in lower case. */
  headers: Record<string, string>
  /** Resolves when the server closes the connection. */
  ended: Promise<void>
  close: () => void
}

export async function keptAliveGet (origin: string, path: string, headers: Record<string, string> = {}): Promise<KeptAliveAnswer> {
  const { port } = new URL(origin)
  const socket = net.connect(Number(port), '127.0.0.1')
  socket.setEncoding('latin1')
  socket.on('error', () => {})
  const ended = new Promise<void>((resolve) => { socket.once('close', () => { resolve() }) })
  const lines = Object.entries({ host: 'localhost', accept: 'text/event-stream', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  socket.write(`GET ${path} HTTP/1.1\r\n${lines}\r\n`)
  const head = await new Promise<string>((resolve, reject) => {
    let received = ''
    const onData = (chunk: string): void => {
      received += chunk
      const end = received.indexOf('\r\n\r\n')
      if (end < 0) return
      socket.off('data', onData)
      // Keep reading (and dropping) what follows, so the server never waits on this client.
      socket.on('data', () => {})
      resolve(received.slice(0, end))
    }
    socket.on('data', onData)
    socket.once('close', () => { reject(new Error(`the connection closed before an answer: ${JSON.stringify(received)}`)) })
  })
  const [statusLine = '', ...headerLines] = head.split('\r\n')
  return {
    status: Number(statusLine.split(' ')[1]),
    headers: Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()])),
    ended,
    close: () => { socket.destroy() }
  }
}
