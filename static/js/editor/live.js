// Goals while typing: after a pause in typing, the editor asks the server for the goals and
// messages of its current text (webapp/attempts/live_goals.py: a check-only run in the
// prover's exploration pool that records nothing). The answer comes on the page's socket as
// the #live-goals fragment. Only the answer to this page's latest request is drawn; an older
// one is dropped (a newer is coming). A drawn answer is marked stale as soon as the text
// changes, until the next answer replaces it.

export const PAUSE_MS = 400;
// Past this without an answer, the note says so (a busy or stopped Lean worker).
const SLOW_MS = 8000;

function csrfToken(textarea) {
  const field = textarea.form?.querySelector('input[name=csrfmiddlewaretoken]');
  return field ? field.value : '';
}

function pageId() {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// `onAnswer(result)` draws an answer (the same shape as an attempt's editor data, with
// `live: true`); `note(text, kind)` writes the goal view's one-line status.
export function liveGoals({ textarea, proofText, onAnswer, note }) {
  const url = textarea.dataset.liveGoalsUrl;
  if (!url) return null;
  const client = pageId();
  let seq = 0;
  let timer = null;
  let slowTimer = null;
  let sentText = null;
  let drawnText = null; // the text the drawn answer is about

  async function send() {
    const text = proofText();
    if (!text.trim()) {
      note('Type a tactic to see the goals as you go.', '');
      return;
    }
    seq += 1;
    const mine = seq;
    sentText = text;
    note('Lean is reading your text…', 'pending');
    clearTimeout(slowTimer);
    slowTimer = setTimeout(() => {
      if (mine === seq) note('No answer from Lean yet: the checkers are busy. “Check my proof” still works.', 'stale');
    }, SLOW_MS);
    const body = new FormData();
    body.append('proof', text);
    body.append('seq', String(mine));
    body.append('client', client);
    let response;
    try {
      response = await fetch(url, {
        method: 'POST', body, credentials: 'same-origin', headers: { 'X-CSRFToken': csrfToken(textarea) },
      });
    } catch (e) {
      if (mine === seq) { clearTimeout(slowTimer); note('Goals while typing: the server did not answer (offline?).', 'stale'); }
      return;
    }
    if (!response.ok && mine === seq) {
      clearTimeout(slowTimer);
      let message = 'Goals while typing are unavailable right now.';
      try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
      note(message, 'stale');
    }
  }

  // The text changed: the drawn answer is stale; ask again after the pause.
  function changed() {
    if (drawnText !== null && proofText() !== drawnText) {
      note('You changed the text since these goals; they update when you pause.', 'stale');
    }
    clearTimeout(timer);
    timer = setTimeout(send, PAUSE_MS);
  }

  // The #live-goals fragment arrived (or any page change): draw it if it answers our latest.
  let lastSeen = null;
  function arrived() {
    const node = document.getElementById('live-goals');
    const raw = node?.dataset.liveGoals;
    if (!raw || raw === lastSeen) return;
    lastSeen = raw;
    let data;
    try { data = JSON.parse(raw); } catch (e) { return; }
    if (data.client !== client || data.seq !== seq) return; // another tab's, or superseded
    clearTimeout(slowTimer);
    if (data.unavailable) {
      drawnText = null;
      note(data.unavailable, 'unavailable');
      return;
    }
    drawnText = sentText;
    onAnswer(data);
    if (proofText() !== drawnText) {
      note('You changed the text since these goals; they update when you pause.', 'stale');
    } else if (data.problem) {
      note(data.problem, 'stale');
    } else {
      note('Goals and messages of your text as you type (not a check: “Check my proof” checks it).', 'fresh');
    }
  }

  // "Check my proof": the graded check answers for this text now (with the coach's
  // suggestions); a pending or running goals request would only draw over it.
  function submitted() {
    clearTimeout(timer);
    clearTimeout(slowTimer);
    seq += 1; // no answer in flight matches any more
    drawnText = null;
    note('', '');
  }
  textarea.form?.addEventListener('submit', submitted);

  return { changed, arrived, client: () => client };
}
