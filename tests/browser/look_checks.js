// The checks of tests/browser/test_every_page.py, run by Chromium in each page: returns a list
// of faults (text out of its box, blocks over each other, links and buttons outside the
// site's look, a page without the site's frame). %LINK% is the site's link colour.
() => {
  const faults = [];
  const LINK = "%LINK%";
  const say = (what, el, more) => {
    const text = (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60);
    const id = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
      + (typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "");
    faults.push(`${what}: <${id}> "${text}"${more ? " " + more : ""}`);
  };
  const shown = el => {
    // the content of a closed <details> is laid out but not drawn
    if (el.closest("details:not([open])") && !el.closest("summary")) return false;
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden") return false;
    const box = el.getBoundingClientRect();
    return box.width > 1 && box.height > 1;
  };
  // inside a box that scrolls (a wide table, a code block, a log) overflow is by design
  const scrolls = el => {
    for (let up = el; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (/(auto|scroll)/.test(style.overflowX + style.overflowY)) return true;
    }
    return false;
  };
  // hidden for the eye, kept for screen readers: the .sr-only pattern, by class or by a
  // rule of its own (a review table's headings on a phone)
  const clipped = el => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.position === "absolute" && s.clip === "rect(0px, 0px, 0px, 0px)") return true;
    }
    return false;
  };
  const visuallyHidden = el => el.closest(".sr-only, .skip, [hidden]") !== null || clipped(el);

  // 1. the frame: the site's header with its navigation, the footer, the stylesheet
  const header = document.querySelector("body > header.top");
  if (!header || !header.querySelector("nav.nav") || !shown(header)) faults.push("no site header");
  const footer = document.querySelector("body > footer.foot");
  if (!footer || !shown(footer)) faults.push("no site footer");
  if (!document.querySelector("main")) faults.push("no main");
  if (![...document.styleSheets].some(s => s.href && s.href.includes("/css/site.css") && s.cssRules.length))
    faults.push("site.css is not applied");
  if (document.documentElement.scrollWidth > window.innerWidth + 1)
    faults.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px in ${window.innerWidth}`);

  const all = [...document.querySelectorAll("header.top *, main *, footer.foot *")]
    .filter(el => shown(el) && !visuallyHidden(el));

  // 2. text that runs out of its box (a box that does not scroll)
  for (const el of all) {
    const style = getComputedStyle(el);
    if (style.display === "inline" || style.display === "contents") continue;
    if (/(auto|scroll)/.test(style.overflowX) || scrolls(el.parentElement)) continue;
    if (style.textOverflow === "ellipsis") continue;
    const ownText = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (ownText && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      say("text overflows its box", el, `(${el.scrollWidth} px in ${el.clientWidth})`);
  }

  // 3. a block that leaves its parent's box (a float out of its row, a name past its card)
  for (const el of all) {
    const parent = el.parentElement;
    if (!parent || !parent.closest("main")) continue;
    const style = getComputedStyle(el);
    if (style.position === "absolute" || style.position === "fixed") continue;
    if (style.display === "inline" || scrolls(parent)) continue;
    const pstyle = getComputedStyle(parent);
    if (pstyle.display === "inline" || pstyle.display === "contents") continue;
    const box = el.getBoundingClientRect(), outer = parent.getBoundingClientRect();
    if (box.left < outer.left - 1 || box.right > outer.right + 1
        || box.top < outer.top - 1 || box.bottom > outer.bottom + 1)
      say("outside its parent's box", el,
        `(${Math.round(box.left)}..${Math.round(box.right)} x ${Math.round(box.top)}..${Math.round(box.bottom)}`
        + ` in ${Math.round(outer.left)}..${Math.round(outer.right)} x ${Math.round(outer.top)}..${Math.round(outer.bottom)})`);
  }

  // 4. sibling elements that cover each other (each line of an inline one on its own)
  const rects = el => [...el.getClientRects()].filter(r => r.width > 1 && r.height > 1);
  const cover = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 2
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 2;
  const parents = new Set(all.map(el => el.parentElement));
  for (const parent of parents) {
    if (!parent || scrolls(parent)) continue;
    // in a drawing, lines and areas cross on purpose: only its words must stay apart
    const drawing = parent.closest("svg") !== null;
    const kids = [...parent.children].filter(el => shown(el) && !visuallyHidden(el)
      && !["absolute", "fixed"].includes(getComputedStyle(el).position)
      && (!drawing || el.tagName.toLowerCase() === "text"));
    for (let i = 0; i < kids.length; i++) {
      for (let j = i + 1; j < kids.length; j++) {
        const hit = rects(kids[i]).some(a => rects(kids[j]).some(b => cover(a, b)));
        if (hit) say("covers its sibling", kids[i], `and <${kids[j].tagName.toLowerCase()}> "${kids[j].textContent.trim().slice(0, 40)}"`);
      }
    }
  }

  // 5. links in the site's colour (but those drawn as buttons, the header's and the
  //    replay's step links, which have a look of their own), buttons in the site's look
  const body = getComputedStyle(document.body);
  for (const a of document.querySelectorAll("main a[href], footer.foot a[href]")) {
    if (!shown(a) || visuallyHidden(a)) continue;
    if (a.matches(".button, .btn, .replay__button, .log-step > a, .game h3 a")) continue;
    const colour = getComputedStyle(a).color;
    if (colour !== LINK) say("a link not in the site's colour", a, colour);
  }
  for (const b of document.querySelectorAll("main button, main .button, main .btn, header.top button, main input[type=submit]")) {
    if (!shown(b) || visuallyHidden(b)) continue;
    const style = getComputedStyle(b);
    // the browser's own button: its grey face, its 13.33 px font, another font family
    if (style.backgroundColor === "rgb(239, 239, 239)" || style.backgroundColor === "rgb(240, 240, 240)")
      say("a button in the browser's grey", b);
    if (style.fontFamily !== body.fontFamily && !b.matches("code *, kbd *"))
      say("a button in another font", b, style.fontFamily);
    if (Math.abs(parseFloat(style.fontSize) - 13.333) < 0.01) say("a button in the browser's font size", b);
    // a label whose words are broken, a few letters a line (the tables list's "Play ..."
    // buttons at 390 px were): a text of N words on more than N + 1 lines (one word too
    // long for any line, a 60-letter bot name, may take two)
    const walker = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const words = node.textContent.trim().split(/\s+/).filter(Boolean).length;
      if (!words) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 1).map(r => Math.round(r.top))).size;
      if (lines > words + 1) say("a button's words broken across lines", b, `(${words} words on ${lines} lines)`);
    }
  }
  return faults;
}
