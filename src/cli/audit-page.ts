import { formatScopes, listedItem, type Access, type AuditMatrix } from './audit-matrix';
import { cell } from './acl-diff';
import { grantCause, type AclVersion } from './grant-cause';
import { markupText } from '../policy/compile/documents/markup-text';

const SHOWN: Record<Access, string> = { any: 'any', own: 'own', '-': 'deny', public: 'public' };

/**
 * `svcgate audit --html`: one self-contained page (no request leaves it: a CSP forbids any) with
 * the role x operation matrix, each cell coloured and worded by its access and explaining its
 * grant on hover and click, and filters by role and path. The filter state lives in the URL
 * fragment (`#roles=user,admin&path=users`), so a filtered view can be linked to.
 */
export function auditPage(matrix: AuditMatrix, version: AclVersion): string {
  const header = matrix.roles.map((role) => `<th data-role="${markupText(role)}">${markupText(role)}</th>`).join('');
  const rows = Object.entries(matrix.operations).map(([operation, cells]) => {
    const scopes = formatScopes(matrix.scopes[operation] ?? []);
    const item = listedItem(matrix, operation);
    const tds = matrix.roles.map((role) => {
      const access = cells[role] ?? '-';
      const why = explanation(version, operation, role, access, scopes, item);
      return `<td class="${SHOWN[access]}" data-role="${markupText(role)}" title="${markupText(why)}" data-why="${markupText(why)}" tabindex="0">${SHOWN[access]}</td>`;
    });
    const lists = item === undefined ? '' : ` <small class="lists">lists ${markupText(item)}</small>`;
    return `<tr data-path="${markupText(operation)}"><th scope="row">${markupText(operation)}${lists}</th>${tds.join('')}<td class="scopes">${markupText(scopes)}</td></tr>`;
  });
  const roleBoxes = matrix.roles.map((role) => `<label><input type="checkbox" name="role" value="${markupText(role)}" checked> ${markupText(role)}</label>`).join(' ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>svcgate audit ${markupText(version.name)}</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 1.5rem; color: #1a1a1a; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 0.3rem 0.6rem; text-align: left; }
td { cursor: pointer; }
td.any { background: #c6efce; } td.own { background: #fff2b3; } td.deny { background: #f4c7c3; color: #6b1a13; } td.public { background: #cfe2f3; }
td.scopes { background: #f5f5f5; cursor: default; }
small.lists { display: block; font-weight: normal; color: #555; }
[hidden] { display: none; }
#filters { margin-bottom: 1rem; } #filters input[type=search] { width: 20rem; }
#why { margin-top: 1rem; padding: 0.6rem; border-left: 4px solid #888; background: #fafafa; min-height: 1.2rem; }
</style>
</head>
<body>
<h1>svcgate audit</h1>
<p>ACL ${markupText(version.name)}, data revision ${markupText(matrix.revision)}. <b>any</b>: allowed; <b>own</b>: allowed to owners of the operation's owned parameters; <b>deny</b>: denied; <b>public</b>: the operation needs no token. A list operation (x-acl-list, marked <i>lists</i> with its item) is decided by its item's read grants: any lists every item, own the items the caller owns. Decided by the policy as if the token held the scopes listed. Click a cell for its grant.</p>
<form id="filters">
<div>Roles: ${roleBoxes}</div>
<div><label>Path contains <input type="search" name="path" placeholder="e.g. /users"></label></div>
</form>
<table id="matrix">
<thead><tr><th>operation</th>${header}<th>scopes</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
<div id="why" aria-live="polite"></div>
<script>
(() => {
  const form = document.getElementById('filters');
  const why = document.getElementById('why');
  const read = () => {
    const state = new URLSearchParams(location.hash.slice(1));
    const roles = state.has('roles') ? state.get('roles').split(',').filter(Boolean) : null;
    return { roles, path: (state.get('path') || '').toLowerCase() };
  };
  const apply = () => {
    const { roles, path } = read();
    for (const box of form.elements.role ? (form.elements.role.length === undefined ? [form.elements.role] : form.elements.role) : []) box.checked = roles === null || roles.includes(box.value);
    form.elements.path.value = path;
    for (const element of document.querySelectorAll('[data-role]')) element.hidden = roles !== null && !roles.includes(element.dataset.role);
    for (const row of document.querySelectorAll('tr[data-path]')) row.hidden = path !== '' && !row.dataset.path.toLowerCase().includes(path);
  };
  // The controls write the fragment and the fragment decides what shows: one path for both.
  const write = () => {
    const state = new URLSearchParams();
    const boxes = [...form.querySelectorAll('input[name=role]')];
    if (boxes.some((box) => !box.checked)) state.set('roles', boxes.filter((box) => box.checked).map((box) => box.value).join(','));
    if (form.elements.path.value) state.set('path', form.elements.path.value);
    location.hash = state.toString();
  };
  form.addEventListener('input', write);
  form.addEventListener('submit', (event) => event.preventDefault());
  window.addEventListener('hashchange', apply);
  const explain = (event) => {
    const cell = event.target.closest('td[data-why]');
    if (cell) why.textContent = cell.dataset.why;
  };
  document.getElementById('matrix').addEventListener('click', explain);
  document.getElementById('matrix').addEventListener('focusin', explain);
  apply();
})();
</script>
</body>
</html>
`;
}

function explanation(version: AclVersion, operation: string, role: string, access: Access, scopes: string, item: string | undefined): string {
  // The attributes in effect, not only the nearest grant's list: `$extend` unites lists, so admin's
  // ["name"] over user's ["*","!password"] shows all but password, which the grant alone did not say.
  const attributes = access === 'any' || access === 'own' ? `, attributes ${JSON.stringify(cell(version.data, operation, role, access).attributes)}` : '';
  const verdicts = item === undefined ? { any: 'allowed', own: 'allowed to owners', '-': 'denied', public: 'allowed to everyone' } : { any: `lists every item of ${item}`, own: `lists the items of ${item} it owns`, '-': 'denied', public: 'allowed to everyone' };
  const verdict = verdicts[access] + attributes;
  const needs = scopes === '-' ? '' : `; scopes needed: ${scopes}`;
  return `${role} on ${operation}: ${verdict}; ${grantCause(version, operation, role, access)}${needs}`;
}
