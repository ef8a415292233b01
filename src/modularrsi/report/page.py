"""The HTML page around the sections: one file with its stylesheet and a few lines of script inlined.

The navigation bar links to every section by anchor; each section can scroll to the top of the window
(the page ends with room to spare). The script only highlights the section in view and opens or
closes every ``<details>``; the page is complete without it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from modularrsi.report.gather import SIM_LABEL


@dataclass
class Section:
    anchor: str
    title: str
    body: str
    nav: str = ""  # short label in the navigation bar (default: the title)


PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#bab0ac"]

CSS = """
:root{--fg:#1d2330;--muted:#5b6474;--bg:#fbfbfd;--card:#fff;--line:#e3e6ec;--add:#e6ffec;--del:#ffebe9}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;
color:var(--fg);background:var(--bg);padding-bottom:85vh}
nav{position:sticky;top:0;z-index:10;background:#1d2330;padding:8px 16px;display:flex;flex-wrap:wrap;gap:4px 14px}
nav a{color:#cfd6e4;text-decoration:none;font-size:13px}nav a:hover,nav a.here{color:#fff;text-decoration:underline}
nav button{margin-left:auto;font-size:12px;background:#3b4252;color:#fff;border:0;border-radius:4px;cursor:pointer}
nav .brand{color:#fff;font-weight:600;margin-right:10px}
main{max-width:1180px;margin:0 auto;padding:12px 20px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:16px 0;
scroll-margin-top:64px;overflow-x:auto}
h1{font-size:22px;margin:14px 0 4px}h2{font-size:18px;margin:0 0 10px}h3{font-size:15px;margin:14px 0 6px}
.sim{background:#fff4d6;border:2px solid #e0a800;color:#5c4400;padding:10px 14px;border-radius:6px;font-weight:600}
.muted{color:var(--muted)}.small{font-size:12px}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f8;font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#1a7f37;font-weight:600}.bad{color:#cf222e;font-weight:600}.warn{color:#9a6700;font-weight:600}
.chip{display:inline-block;border-radius:10px;padding:0 8px;margin:1px 2px;font-size:12px;background:#eef1f5}
.chip.ok{background:#dafbe1}.chip.bad{background:#ffebe9}
details{margin:6px 0}summary{cursor:pointer;font-weight:600}
pre{background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:8px;overflow-x:auto;font-size:12px;
line-height:1.35;white-space:pre}
pre.wrap{white-space:pre-wrap;word-break:break-all;max-height:260px;overflow-y:auto}
pre.diff .ln{display:block}pre.diff .add{background:var(--add)}pre.diff .del{background:var(--del)}
pre.diff .hd{color:#57606a;font-weight:600}pre.diff .hk{color:#8250df;background:#f5f0ff}
pre.diff .mk{color:#8c959f;user-select:none;display:inline-block;width:1.2em}
.k{color:#cf222e}.b{color:#8250df}.s{color:#0a3069}.c{color:#6e7781;font-style:italic}.n{color:#0550ae}
.d{color:#953800}.f{color:#6639ba;font-weight:600}
table.case{width:100%;table-layout:fixed}table.case .idx{width:40px}
.msg{color:var(--muted);font-size:12px;white-space:pre-wrap}
table.findings td{max-width:300px;overflow-wrap:anywhere}table.findings td:first-child{white-space:nowrap}
tr.diverge td{background:#fff8c5;border-top:2px solid #d4a72c;border-bottom:2px solid #d4a72c}
tr.same td{opacity:.8}
svg.plot{display:block;margin:8px 0;max-width:100%;height:auto}svg .lbl{fill:#3b4252}svg .hdr{fill:#1d2330;
font-weight:600}svg .inbar{fill:#fff;font-weight:600}svg .axis{stroke:#8c959f}svg .grid{stroke:#eceff3}
svg .line{fill:none;stroke-width:2.5}svg .dot{stroke-width:2.5}svg .dot.hollow{fill:#fff}
svg .edge{fill:none;stroke:#8c959f;stroke-width:1.4}svg .arrowhead{fill:#8c959f}
svg .node .box{fill:#fff;stroke:#57606a}svg .node.retired .box{stroke-dasharray:4 3;fill:#f6f8fa}
svg .node.retired text{fill:#8c959f}svg .node.inactive .box,svg .node.continued .box{fill:#f6f8fa}
svg.lineage{max-width:none}svg .node.merged .box{stroke-width:3}
svg .strong{font-weight:600}
svg .fix{fill:#2da44e}svg .brk{fill:#cf222e}svg .same{fill:#8c959f}svg .empty{fill:#eef1f5}
""" + "".join(f"svg .c{i}{{fill:{c}}}svg .s{i}{{stroke:{c};fill:{c}}}svg .dot.hollow.s{i}{{fill:#fff}}"
              for i, c in enumerate(PALETTE))

SCRIPT = """
(function(){
  var links=[].slice.call(document.querySelectorAll('nav a[href^="#"]'));
  function mark(){var best=null;links.forEach(function(a){
    var t=document.getElementById(a.getAttribute('href').slice(1));
    if(t&&t.getBoundingClientRect().top<120){best=a;}});links.forEach(function(a){a.classList.toggle('here',a===best);});}
  document.addEventListener('scroll',mark,{passive:true});mark();
  var toggle=document.getElementById('toggle-details');
  if(toggle){toggle.addEventListener('click',function(){var all=document.querySelectorAll('details');
    var open=[].some.call(all,function(d){return !d.open;});all.forEach(function(d){d.open=open;});});}
})();
"""


def sim_banner() -> str:
    return f'<p class="sim" id="sim-label">{html.escape(SIM_LABEL)}</p>'


def render_page(title: str, subtitle: str, sections: list[Section], simulated: bool) -> str:
    nav = "".join(f'<a href="#{s.anchor}">{html.escape(s.nav or s.title)}</a>' for s in sections)
    body = "".join(f'<section id="{s.anchor}"><h2>{html.escape(s.title)}</h2>{s.body}</section>' for s in sections)
    banner = sim_banner() if simulated else ""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
            f'<nav><span class="brand">ModularRSI</span>{nav}'
            f'<button type="button" id="toggle-details" class="small">open/close all details</button></nav>'
            f'<main><h1>{html.escape(title)}</h1><p class="muted">{html.escape(subtitle)}</p>{banner}{body}</main>'
            f"<script>{SCRIPT}</script></body></html>")
