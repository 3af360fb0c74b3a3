package board

// Bounds of moved items, derived from the service's own limits, so that an
// import takes exactly what a write through the service could have stored
// and refuses everything larger before it holds much of it.

// MaxTicketNumber is the largest ticket number a store keeps. The embedded
// store's search index places a workspace's tickets at rowid
// ws_key<<40 | number: a number of 2^40 or more would land in the next
// workspace's range and mix search results across workspaces. A workspace
// that hands out a number a second would take 35,000 years to reach it.
const MaxTicketNumber = 1<<40 - 1

// maxEscapedRune is what one character of text can take in JSON: a
// control character, <, >, & or a line separator is written as \u00XX
// (6 bytes); every other character takes at most 4.
const maxEscapedRune = 6

// maxTicketTextRunes is the most text one ticket carries: its title, body
// and links at their limits (tags are counted apart: they are ASCII).
const maxTicketTextRunes = MaxTitle + MaxBody + MaxLinks*(MaxLinkRef+MaxLinkTitle)

// maxTicketJSON bounds a ticket as JSON: its text, every character
// escaped; its tags (each at most 32 bytes, quoted and separated); and
// 8 KiB for the rest: ids, authors, times, a URL of at most 2000 bytes, the
// link kinds and the keys.
const maxTicketJSON = maxTicketTextRunes*maxEscapedRune + MaxTags*(32+3) + 8<<10

// MaxTransferredJSON bounds a request record's arguments and its result, each:
// the largest of them is a create's or an update's, which carries a whole
// ticket, and whose result adds the similar tickets (titles and URLs).
// Notes (MaxNoteBody) and moves (MaxReason) carry less.
const MaxTransferredJSON = maxTicketJSON + MaxSimilar*(MaxTitle*maxEscapedRune+4<<10)

// MaxTransferLine is the longest line of a board file an import reads: the
// largest item (a request record: its arguments and result at MaxTransferredJSON
// each, the rest of the record well under 1 KiB), plus a margin of 64 KiB.
// About 0.9 MB; a line longer than that is no item the service wrote.
const MaxTransferLine = 2*MaxTransferredJSON + 64<<10
