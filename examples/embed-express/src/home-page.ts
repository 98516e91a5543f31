/** The app's one page: sign up or in, then run a prompt through gengate with the session (no API key). */
export function homePage(mount: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>embed-express</title></head>
<body>
<h1>embed-express</h1>
<form id="auth"><input name="email" type="email" placeholder="e-mail" required> <input name="password" type="password" placeholder="password (8+)" required>
<button name="op" value="sign-in">Sign in</button> <button name="op" value="sign-up">Sign up</button></form>
<form id="run" hidden><input name="prompt" size="50" placeholder="Say hello" required> <button>Run</button></form>
<p id="balance"></p><pre id="out"></pre>
<script type="module">
const $ = (id) => document.getElementById(id);
let csrf = null;
const ai = (path, init = {}) => fetch('${mount}' + path, { ...init, headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, ...init.headers } }).then((r) => r.json());
async function signedIn(me) {
  csrf = me.csrf_token; $('auth').hidden = true; $('run').hidden = false;
  $('balance').textContent = me.email + ': ' + (await ai('/billing/balance')).credits + ' credits';
}
fetch('/auth/me').then((r) => (r.ok ? r.json().then(signedIn) : null));
$('auth').onsubmit = async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  const r = await fetch('/auth/' + e.submitter.value, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: f.get('email'), password: f.get('password') }) });
  if (r.ok) signedIn(await r.json()); else $('out').textContent = (await r.json()).error;
};
$('run').onsubmit = async (e) => {
  e.preventDefault();
  const { task_id } = await ai('/run/sandbox.echo-chat', { method: 'POST', body: JSON.stringify({ prompt: new FormData(e.target).get('prompt') }) });
  let task;
  do { await new Promise((r) => setTimeout(r, 300)); task = await ai('/run/tasks/' + task_id); } while (task.status === 'waiting' || task.status === 'generating');
  $('out').textContent = task.status === 'success' ? await (await fetch(task.result_urls[0])).text() : task.error_message;
};
</script>
</body></html>
`;
}
