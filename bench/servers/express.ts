// Baseline: Express 5 with a parameterised route, as a typical hand-written service would be.
import express from 'express'
import { STUDENT, announce } from './shared.js'

const app = express()
app.disable('x-powered-by')
app.disable('etag')
app.get('/students/:id', (req, res) => {
  if (Number(req.params.id) !== 0) { res.status(404).end(); return }
  res.json({ isSuccessful: true, body: STUDENT })
})
const server = app.listen(0, '127.0.0.1', () => announce(server))
