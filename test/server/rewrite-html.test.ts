import { describe, expect, it } from 'vitest';
import { rewriteCss, rewriteHtml } from '../../src/server/rewrite-html.ts';

const PAGE = 'http://site.example/dir/page.html';
const archive = (url: string) => `/replay/20250101000000/${url}`;

describe('rewriteHtml: archived pages link into the archive', () => {
  it('rewrites links, images, scripts, stylesheets and forms, relative or absolute, in any quoting', () => {
    const html = `<!DOCTYPE html><html><head><link rel=stylesheet href='style.css'><script src="/js/app.js"></script></head>
<body><a href="other.html?a=1&amp;b=2#sec">x</a> <a href=http://elsewhere.example/>y</a> <img src = "img/p.png" srcset="a.png 1x, /b.png 2x">
<form action="../search"><input formaction="go"></form><object data="movie.swf"></object></body></html>`;
    const out = rewriteHtml(html, PAGE, archive);
    expect(out).toContain(`href='/replay/20250101000000/http://site.example/dir/style.css'`);
    expect(out).toContain(`src="/replay/20250101000000/http://site.example/js/app.js"`);
    // The entity is decoded for resolving and encoded again in the attribute.
    expect(out).toContain(`href="/replay/20250101000000/http://site.example/dir/other.html?a=1&amp;b=2#sec"`);
    expect(out).toContain(`href="/replay/20250101000000/http://elsewhere.example/">y`);
    expect(out).toContain(`src = "/replay/20250101000000/http://site.example/dir/img/p.png"`);
    expect(out).toContain(`srcset="/replay/20250101000000/http://site.example/dir/a.png 1x, /replay/20250101000000/http://site.example/b.png 2x"`);
    expect(out).toContain(`action="/replay/20250101000000/http://site.example/search"`);
    expect(out).toContain(`formaction="/replay/20250101000000/http://site.example/dir/go"`);
    expect(out).toContain(`data="/replay/20250101000000/http://site.example/dir/movie.swf"`);
  });

  it('leaves fragments, other schemes, scripts\' contents and every other byte as they were', () => {
    const html = `<p class="x">Hi &amp; bye</p><a href="#top">t</a><a href="mailto:a@b.example">m</a><a href="javascript:void(0)">j</a>
<img src="data:image/png;base64,AAAA"><a href="">e</a><a href>n</a><script>var u = "<a href='x.html'>";</script><!-- <a href="c.html"> -->`;
    expect(rewriteHtml(html, PAGE, archive)).toBe(html);
  });

  it('sends a <meta> refresh into the archive, whatever the order of its attributes, and leaves other <meta> content alone', () => {
    expect(rewriteHtml(`<meta http-equiv="Refresh" content="0; URL='new/page.html'">`, PAGE, archive))
      .toBe(`<meta http-equiv="Refresh" content="0; URL='/replay/20250101000000/http://site.example/dir/new/page.html'">`);
    expect(rewriteHtml(`<meta content="5;url=/x" http-equiv=refresh />`, PAGE, archive)).toBe(`<meta content="5;url=/replay/20250101000000/http://site.example/x" http-equiv=refresh />`);
    const plain = `<meta name="description" content="url=/not-a-redirect"><meta http-equiv="refresh" content="30">`;
    expect(rewriteHtml(plain, PAGE, archive)).toBe(plain);
  });

  it('resolves later URLs against <base>, and sends <base> into the archive too', () => {
    const out = rewriteHtml(`<base href="http://cdn.example/assets/"><img src="i.png">`, PAGE, archive);
    expect(out).toBe(`<base href="/replay/20250101000000/http://cdn.example/assets/"><img src="/replay/20250101000000/http://cdn.example/assets/i.png">`);
  });

  it('keeps a quote inside a rewritten URL from ending the attribute', () => {
    const out = rewriteHtml(`<a href='it%27s.html?q="x"'>q</a>`, PAGE, (u) => `/r/${u}`);
    expect(out).toBe(`<a href='/r/http://site.example/dir/it%27s.html?q=%22x%22'>q</a>`);
    expect(rewriteHtml(`<a href="a.html" title='x'>q</a>`, PAGE, () => `/r/it's "quoted"`)).toBe(`<a href="/r/it's &quot;quoted&quot;" title='x'>q</a>`);
  });

  it('rewrites the URLs of style sheets inside the page: <style> elements and style attributes', () => {
    const html = `<style>body { background: url("bg.png") } @import 'print.css';</style><p>url(not-css.png)</p><div style="background:url(i.png)">x</div><style>.a{}</style>`;
    expect(rewriteHtml(html, PAGE, archive)).toBe(
      `<style>body { background: url("/replay/20250101000000/http://site.example/dir/bg.png") } @import '/replay/20250101000000/http://site.example/dir/print.css';</style>`
      + `<p>url(not-css.png)</p><div style="background:url(/replay/20250101000000/http://site.example/dir/i.png)">x</div><style>.a{}</style>`,
    );
  });
});

describe('rewriteCss', () => {
  it('rewrites url() in every quoting and @import, and leaves data: URLs alone', () => {
    const css = `@import "a.css"; @import url(b.css); .x { background: url( 'c.png' ) } .y { background: URL(d.png) } .z { src: url(data:font/woff2;base64,AAAA) }`;
    expect(rewriteCss(css, 'http://site.example/css/main.css', (u) => `/r/${u}`)).toBe(
      `@import "/r/http://site.example/css/a.css"; @import url(/r/http://site.example/css/b.css); .x { background: url('/r/http://site.example/css/c.png') } .y { background: url(/r/http://site.example/css/d.png) } .z { src: url(data:font/woff2;base64,AAAA) }`,
    );
  });
});

describe('rewriteHtml: the replay banner', () => {
  const B = '<div id="banner">archived</div>';
  it('goes first in the body, else after the head, the <html> tag or the doctype, never before the doctype', () => {
    const cases: Array<[string, string]> = [
      ['<!DOCTYPE html><html><head><title>t</title></head><body class="x"><p>a</p></body></html>', `<body class="x">${B}<p>a</p>`],
      // A <body> in a comment or a script is no body tag.
      ['<!DOCTYPE html><html><head><!-- <body> --><script>var s = "<body>";</script></head><body><p>a</p></body></html>', `<body>${B}<p>a</p>`],
      ['<!DOCTYPE html><html><head><title>t</title></head ><p>no body tag</p></html>', `</head >${B}<p>no body tag</p>`],
      ['<!DOCTYPE html><html lang="en"><p>no head</p></html>', `<html lang="en">${B}<p>no head</p>`],
      ['<!doctype html>\n<p>bare</p>', `<!doctype html>${B}\n<p>bare</p>`],
      ['<p>fragment</p>', `${B}<p>fragment</p>`],
    ];
    for (const [html, expected] of cases) {
      const out = rewriteHtml(html, PAGE, archive, B);
      expect(out, html).toContain(expected);
      expect(out.split(B).length, html).toBe(2);
      expect(out.replace(B, ''), html).toBe(html);
    }
  });
});
