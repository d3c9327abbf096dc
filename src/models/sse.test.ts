import { describe, expect, it } from 'vitest'
import { EventStreamParser, type ServerSentEvent } from './sse'

function parse(...pieces: string[]): ServerSentEvent[] {
  const parser = new EventStreamParser()
  return pieces.flatMap((piece) => [...parser.feed(piece)])
}

describe('the event stream parser', () => {
  it('reads events with their type and data lines (an id line is read past)', () => {
    expect(parse('event: delta\nid: 7\ndata: {"a":1}\n\ndata: two\ndata: lines\n\n')).toEqual([
      { event: 'delta', data: '{"a":1}' },
      { data: 'two\nlines' },
    ])
  })

  it('ends lines at CRLF, LF or CR, also when a CRLF is split between two pieces', () => {
    expect(parse('data: a\r\n\r\ndata: b\r\rdata: c\n\n')).toEqual([{ data: 'a' }, { data: 'b' }, { data: 'c' }])
    expect(parse('data: a\r', '\n\r', '\ndata: b\r', '\r')).toEqual([{ data: 'a' }, { data: 'b' }])
  })

  it('skips comments, unknown fields, a leading byte order mark and events without data', () => {
    expect(parse('\uFEFF: keep-alive\nretry: 10\nfoo: bar\nevent: ping\n\ndata:x\n\n')).toEqual([{ data: 'x' }])
  })

  it('takes one space after the colon away, no more, and a field without a colon as empty', () => {
    expect(parse('data:  two spaces\n\ndata\n\n')).toEqual([{ data: ' two spaces' }, { data: '' }])
  })

  it('gives the same events for any split of the text', () => {
    const text = '\uFEFFevent: a\r\ndata: {"x":"é"}\r\n\r\n: note\rdata: 1\rdata: 2\r\rid: 3\ndata: z\n\n'
    const whole = parse(text)
    for (let first = 0; first <= text.length; first++)
      for (let second = first; second <= text.length; second += 3)
        expect(parse(text.slice(0, first), text.slice(first, second), text.slice(second))).toEqual(whole)
  })
})
