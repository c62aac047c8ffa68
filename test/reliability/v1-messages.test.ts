import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../helpers/server.js'

/**
 * Issue 10, defect 6: v1 answered a 201-character firstName with "firstName
 * must be a non-empty string". It now says what is wrong, with the limit.
 */
let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

describe('v1 field messages (issue 10, defect 6)', () => {
  it('a name over 200 characters is "too long", with the limit (POST and PUT)', async () => {
    const post = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'x'.repeat(201), lastName: 'y'.repeat(300), age: 1 } })
    expect(post.status).toBe(400)
    expect(post.body).toEqual({ isSuccessful: false, body: 'Invalid student data: firstName is too long: at most 200 characters; lastName is too long: at most 200 characters' })
    const put = await request(`${server.origin}/students`, { method: 'PUT', json: { id: 0, firstName: 'a', lastName: 'y'.repeat(201), age: 1 } })
    expect(put.body).toEqual({ isSuccessful: false, body: 'Invalid student data: lastName is too long: at most 200 characters' })
  })

  it('200 characters are fine; counted as characters, so 200 emoji are too', async () => {
    const res = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: '😀'.repeat(200), lastName: 'y'.repeat(200), age: 1 } })
    expect(res.status).toBe(201)
  })

  it('the other messages stay as they were', async () => {
    const res = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: '', lastName: 5, age: -1 } })
    expect(res.body.body).toBe('Invalid student data: firstName must be a non-empty string; lastName must be a non-empty string; age must be an integer from 0 to 2147483647')
  })
})
