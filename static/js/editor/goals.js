// The goal view: the goal state at the cursor's line, from the tactics Lean reported
// (`allTactics`), before and after the line's tactic, with what changed marked.

// The step for a line: the innermost tactic that starts on it, else the last one covering it.
export function stepForLine(tactics, line) {
  const starting = tactics.filter((t) => t.line === line);
  if (starting.length) return starting[starting.length - 1];
  const covering = tactics.filter((t) => t.line <= line && line <= t.end_line);
  return covering.length ? covering[covering.length - 1] : null;
}

function goalBlocks(text) {
  return text.split(/\n\n+/).filter((g) => g.trim());
}

const UNKNOWN = 'Unknown: Lean stopped at an error before this point.';
// The line's own error stopped Lean here: nothing "before" it to blame.
const ERROR_HERE = 'Unknown: Lean stopped at the error on this line (see its message).';

function renderState(title, text, compareTo, kind, unknown = UNKNOWN) {
  const section = document.createElement('section');
  section.className = `goal-state goal-${kind}`;
  const heading = document.createElement('h3');
  heading.textContent = title;
  section.append(heading);
  if (text === null || text === undefined) {
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = unknown;
    section.append(p);
    return section;
  }
  const goals = goalBlocks(text);
  if (!goals.length) {
    const p = document.createElement('p');
    p.className = 'ok goal-none';
    p.textContent = 'No goals: this part is proved.';
    section.append(p);
    return section;
  }
  const known = new Set((compareTo ?? '').split('\n').map((l) => l.trim()));
  goals.forEach((goal, index) => {
    const box = document.createElement('div');
    box.className = 'goal';
    const lines = goal.split('\n');
    if (lines[0].startsWith('case ')) {
      const name = document.createElement('div');
      name.className = 'goal-case';
      name.textContent = lines.shift();
      box.append(name);
    } else if (goals.length > 1) {
      const name = document.createElement('div');
      name.className = 'goal-case';
      name.textContent = `goal ${index + 1} of ${goals.length}`;
      box.append(name);
    }
    for (const text of lines) {
      const row = document.createElement('div');
      const target = text.startsWith('⊢');
      row.className = target ? 'goal-target' : 'goal-hyp';
      row.textContent = text;
      if (compareTo !== undefined && compareTo !== null && !known.has(text.trim())) {
        row.classList.add('goal-changed');
        const mark = document.createElement('span');
        mark.className = 'goal-changed-label';
        mark.textContent = ' (changed)';
        row.append(mark);
      }
      box.append(row);
    }
    section.append(box);
  });
  return section;
}

// Draw the goal state for `line` into `panel` (an element with role=region, aria-live).
export function showGoals(panel, result, line, lineText) {
  const body = panel.querySelector('.goal-body');
  const where = panel.querySelector('.goal-where');
  body.replaceChildren();
  const tactics = result?.tactics || [];
  if (!result || !tactics.length) {
    where.textContent = '';
    const p = document.createElement('p');
    p.className = 'muted';
    if (result && result.live) {
      p.textContent = 'Lean found no tactic steps in this text yet (see its messages, underlined).';
    } else {
      p.textContent = result && result.status === 'done'
        ? 'Lean reported no tactic steps for this proof.'
        : 'Pause typing (or check your proof) to see the goals at each line.';
    }
    body.append(p);
    return;
  }
  const step = stepForLine(tactics, line);
  // Lean's "unsolved goals" error carries the goals left at the end of the proof.
  const unsolved = (result.diagnostics || []).find((d) => d.kind === 'unsolved_goals' && d.goal);
  if (!step && unsolved && unsolved.line === line) {
    where.textContent = `Line ${line}: the proof as a whole`;
    body.append(renderState('Unsolved goals', unsolved.goal, undefined, 'unsolved'));
    return;
  }
  if (!step) {
    where.textContent = `Line ${line}`;
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = 'No tactic on this line. Move to a line of your proof.';
    body.append(p);
    return;
  }
  where.textContent = `Line ${line}: ${step.tactic}`;
  const stale = result.attempt !== undefined && lineText !== undefined && !lineText.includes(step.tactic.split('\n')[0]);
  if (stale) {
    const p = document.createElement('p');
    p.className = 'warn small';
    p.textContent = 'This line changed since the last check; the goals are from that check.';
    body.append(p);
  }
  body.append(renderState('Before this line', step.before, undefined, 'before'));
  const isLast = !tactics.some((t) => t.line > step.end_line || (t.line === step.end_line && t.column >= step.end_column));
  if ((step.after === null || step.after === undefined) && isLast && unsolved) {
    body.append(renderState('After this line (unsolved goals)', unsolved.goal, step.before, 'after'));
    return;
  }
  const errorHere = (result.diagnostics || []).some(
    (d) => d.severity === 'error' && d.line <= step.end_line && step.line <= (d.end_line ?? d.line),
  );
  body.append(renderState('After this line', step.after, step.before, 'after', errorHere ? ERROR_HERE : UNKNOWN));
}

// The line to show after a failed check: the first error's line, else the first sorry's.
export function firstProblemLine(result) {
  const diags = result?.diagnostics || [];
  const error = diags.find((d) => d.severity === 'error') || diags.find((d) => d.kind === 'sorry_goal');
  return error ? error.line : null;
}
