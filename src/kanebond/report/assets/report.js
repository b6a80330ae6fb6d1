/* kanebond report: the animation (orthographic 3D view on a canvas, time slider, play button,
   drag to rotate; or a cursor over the coordinates when no body position is known).
   A rigid body with a solid (its uniform ellipsoid or plate: semi-axes along principal axes,
   given once in body-frame components) is drawn as that solid: a shaded silhouette and a few
   latitude/longitude rings fixed in the body, so its spin shows. A body with primitive shapes
   (boxes, cylinders, spheres: kind, sizes, rows of rot = the shape's axes and off = its centre
   from the mass centre, in body axes) is drawn as those instead: each a convex mesh whose faces
   turned towards you are shaded by their slant to the light and drawn far first, with every
   other body, in one painter's order (a cylinder's ends carry three spokes, so its spin shows).
   Other bodies are dots with their frame axes. Reads its data from the JSON element #anim-data. No network access. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("anim-data").textContent);
  var canvas = document.getElementById("anim-canvas");
  var ctx = canvas.getContext("2d");
  var slider = document.getElementById("anim-slider");
  var label = document.getElementById("anim-time");
  var play = document.getElementById("anim-play");
  var colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  var axisColors = ["#d62728", "#2ca02c", "#1f77b4"];
  var n = data.t.length;
  function shaped(b) { return !!(b.shapes && b.shapes.length); }
  var hasSolids = data.bodies.some(function (b) { return !!b.solid || shaped(b); });
  var state = { k: 0, yaw: -0.6, pitch: 0.45, playing: false, last: null, zoom: 1,
                follow: false, axes: !hasSolids };
  var flip = data.up === -1;  /* N.z points down: turn the scene half a turn about N.x */
  slider.max = String(Math.max(n - 1, 0));

  function deg(a) { return a * Math.PI / 180; }
  var VIEWS = { iso: [-0.6, 0.45], xy: [0, deg(90)], xz: [0, 0], yz: [deg(-90), 0] };

  function position(b, k) { return b.pos ? b.pos[k] : [0, 0, 0]; }
  function extent(sh) {  /* the farthest a shape reaches from its centre */
    var d = sh.dims;
    if (sh.kind === "box") { return 0.5 * Math.hypot(d[0], d[1], d[2]); }
    return sh.kind === "cylinder" ? Math.hypot(d[0], 0.5 * d[1]) : d[0];
  }
  function size(b) {  /* the farthest the drawn body reaches from its mass centre */
    if (shaped(b)) {
      return Math.max.apply(null, b.shapes.map(function (sh) {
        return Math.hypot(sh.off[0], sh.off[1], sh.off[2]) + extent(sh);
      }));
    }
    return b.solid ? Math.max.apply(null, b.solid.semi) : 0;
  }

  function sceneBounds() {
    var lo = [0, 0, 0], hi = [0, 0, 0];  /* the origin N is always in view */
    data.bodies.forEach(function (b) {
      for (var k = 0; k < n; k++) {
        var p = position(b, k);
        for (var i = 0; i < 3; i++) { lo[i] = Math.min(lo[i], p[i]); hi[i] = Math.max(hi[i], p[i]); }
      }
    });
    var centre = [0, 1, 2].map(function (i) { return 0.5 * (lo[i] + hi[i]); });
    var reach = Math.hypot(centre[0], centre[1], centre[2]);  /* the origin's distance */
    data.bodies.forEach(function (b) {
      for (var k = 0; k < n; k++) {
        var p = position(b, k);
        reach = Math.max(reach, size(b) +
                         Math.hypot(p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]));
      }
    });
    var axis = reach > 1e-9 ? 0.3 * reach : 1.0;
    return { centre: centre, axis: axis, radius: 1.08 * (reach + axis) };
  }

  function clusterRadius() {  /* how far the bodies reach from their centre, at the most */
    var most = 0;
    for (var k = 0; k < n; k++) {
      var sum = [0, 0, 0], count = 0;
      data.bodies.forEach(function (b) {
        if (b.pos) { for (var i = 0; i < 3; i++) { sum[i] += b.pos[k][i]; } count++; }
      });
      if (!count) { return 0; }
      data.bodies.forEach(function (b) {
        if (!b.pos) { return; }
        var p = b.pos[k];
        most = Math.max(most, size(b) + Math.hypot(p[0] - sum[0] / count,
                                                   p[1] - sum[1] / count, p[2] - sum[2] / count));
      });
    }
    return most;
  }

  function flatScene() {
    var z = 0;
    data.bodies.forEach(function (b) {
      if (b.pos) { b.pos.forEach(function (p) { z = Math.max(z, Math.abs(p[2])); }); }
    });
    var spread = 0;
    data.bodies.forEach(function (b) {
      if (b.pos) { b.pos.forEach(function (p) { spread = Math.max(spread, Math.abs(p[0]), Math.abs(p[1])); }); }
    });
    return z < 1e-9 && spread > 1e-9;
  }

  var bounds = data.mode === "3d" ? sceneBounds() : null;
  if (data.mode === "3d" && flatScene()) { state.yaw = VIEWS.xy[0]; state.pitch = VIEWS.xy[1]; }
  if (data.mode === "3d" && hasSolids) {  /* solids small against their path: follow them */
    var cluster = clusterRadius();
    if (cluster > 0 && cluster < 0.12 * bounds.radius) {
      state.follow = true;
      state.zoom = Math.min(50, 0.4 * bounds.radius / cluster);
    }
  }

  function viewCentre() {
    if (!state.follow) { return bounds.centre; }
    var sum = [0, 0, 0], count = 0;
    data.bodies.forEach(function (b) {
      if (b.pos) { for (var i = 0; i < 3; i++) { sum[i] += b.pos[state.k][i]; } count++; }
    });
    return count ? sum.map(function (v) { return v / count; }) : bounds.centre;
  }

  function view(v) {  /* a world vector in view axes: [right, up, depth (away from you)] */
    var x = v[0], y = flip ? -v[1] : v[1], z = flip ? -v[2] : v[2];
    var ca = Math.cos(state.yaw), sa = Math.sin(state.yaw);
    var ce = Math.cos(state.pitch), se = Math.sin(state.pitch);
    var x1 = ca * x - sa * y, y1 = sa * x + ca * y;
    return [x1, z * ce + y1 * se, y1 * ce - z * se];
  }

  function scale() { return 0.5 * state.zoom * Math.min(canvas.width, canvas.height) / bounds.radius; }

  function project(p) {
    var c = state.centre || bounds.centre;
    var w = view([p[0] - c[0], p[1] - c[1], p[2] - c[2]]), s = scale();
    return [canvas.width / 2 + s * w[0], canvas.height / 2 - s * w[1], w[2]];
  }

  function line(a, b, color, width) {
    ctx.strokeStyle = color; ctx.lineWidth = width;
    ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.stroke();
  }

  function drawReference() {
    var o = [0, 0, 0], L = bounds.axis / state.zoom, names = ["x", "y", "z"];
    var p0 = project(o);
    ctx.font = "12px sans-serif"; ctx.fillStyle = "#8a93a3";
    for (var i = 0; i < 3; i++) {
      var e = o.slice(); e[i] += L;
      var p = project(e);
      line(p0, p, "#c3c9d3", 1);
      if (Math.hypot(p[0] - p0[0], p[1] - p0[1]) > 8) {
        ctx.fillText("N." + names[i], p[0] + 3, p[1] - 3);
      }
    }
    ctx.fillText("O", p0[0] - 12, p0[1] + 12);
  }

  function drawGround() {  /* the plane N.xy through O, a grid around the view's centre */
    var c = state.centre, half = bounds.radius / state.zoom;
    var step = Math.pow(10, Math.floor(Math.log10(half / 4)));
    if (half / step > 20) { step *= 5; } else if (half / step > 8) { step *= 2; }
    var R = 1.6 * half, x0 = Math.floor((c[0] - R) / step), x1 = Math.ceil((c[0] + R) / step);
    var y0 = Math.floor((c[1] - R) / step), y1 = Math.ceil((c[1] + R) / step);
    for (var i = x0; i <= x1; i++) {
      line(project([i * step, y0 * step, 0]), project([i * step, y1 * step, 0]), "#e3e6eb", 1);
    }
    for (var j = y0; j <= y1; j++) {
      line(project([x0 * step, j * step, 0]), project([x1 * step, j * step, 0]), "#e3e6eb", 1);
    }
  }

  function path(b, upto, color, alpha, width) {
    ctx.globalAlpha = alpha;
    ctx.strokeStyle = color; ctx.lineWidth = width; ctx.beginPath();
    for (var k = 0; k <= upto; k++) {
      var p = project(b.pos[k]);
      if (k === 0) { ctx.moveTo(p[0], p[1]); } else { ctx.lineTo(p[0], p[1]); }
    }
    ctx.stroke(); ctx.globalAlpha = 1.0;
  }

  function drawTrail(b, color) {
    if (!b.pos) { return; }
    path(b, n - 1, color, 0.15, 1);       /* the whole path, faint */
    path(b, state.k, color, 0.6, 1.5);    /* the path so far */
  }

  function drawLinks() {
    (data.links || []).forEach(function (pair) {
      var a = project(position(data.bodies[pair[0]], state.k));
      var b = pair[1] < 0 ? project([0, 0, 0]) : project(position(data.bodies[pair[1]], state.k));
      line(a, b, "#4a5568", 3);
    });
  }

  function rgb(hex) {
    return [1, 3, 5].map(function (i) { return parseInt(hex.substr(i, 2), 16); });
  }

  function tint(color, f) {  /* f < 1 darkens towards black, f > 1 lightens towards white */
    return "rgb(" + rgb(color).map(function (c) {
      return Math.round(f <= 1 ? c * f : c + (255 - c) * Math.min(f - 1, 1));
    }).join(",") + ")";
  }

  var LIGHT = (function () {  /* from the upper left, towards you, in view axes */
    var l = [-0.35, 0.5, -0.8], m = Math.hypot(l[0], l[1], l[2]);
    return l.map(function (v) { return v / m; });
  })();

  function solidAxes(b) {  /* the solid's semi-axis vectors in view axes, [right, up, depth] */
    var A = b.axes[state.k], R = b.solid.rot;
    return [0, 1, 2].map(function (i) {
      var w = [0, 1, 2].map(function (c) {
        return R[i][0] * A[0][c] + R[i][1] * A[1][c] + R[i][2] * A[2][c];
      });
      return view(w).map(function (v) { return v * b.solid.semi[i]; });
    });
  }

  function ring(c, V, s, f, visible, color) {  /* f(t) -> unit-sphere point in solid axes */
    var steps = 48, prev = null;
    ctx.strokeStyle = color; ctx.lineWidth = 1;
    ctx.beginPath();
    for (var j = 0; j <= steps; j++) {
      var u = f(2 * Math.PI * j / steps);
      var x = c[0] + s * (u[0] * V[0][0] + u[1] * V[1][0] + u[2] * V[2][0]);
      var y = c[1] - s * (u[0] * V[0][1] + u[1] * V[1][1] + u[2] * V[2][1]);
      var show = visible(u);
      if (prev && show && prev[2]) { ctx.lineTo(x, y); } else { ctx.moveTo(x, y); }
      prev = [x, y, show];
    }
    ctx.stroke();
  }

  function drawSolid(b, color, c) {
    var V = solidAxes(b), s = scale();
    /* silhouette: the image of the unit ball under the 2x3 map of the semi-axis vectors */
    var p = 0, q = 0, r = 0;
    V.forEach(function (v) { p += v[0] * v[0]; q -= v[0] * v[1]; r += v[1] * v[1]; });
    var h = Math.hypot(0.5 * (p - r), q), m = 0.5 * (p + r);
    var rx = s * Math.sqrt(Math.max(m + h, 0)), ry = s * Math.sqrt(Math.max(m - h, 0));
    var angle = 0.5 * Math.atan2(2 * q, p - r);
    ctx.save();
    ctx.globalAlpha = 0.88;
    var semi = b.solid.semi, thin = Math.min.apply(null, semi) < 0.15 * Math.max.apply(null, semi);
    if (thin) {  /* a plate (or a thin body): one shade, from its normal's slant to the light */
      var nrm = V[2], len = Math.hypot(nrm[0], nrm[1], nrm[2]) || 1;
      var lit = Math.abs(nrm[0] * LIGHT[0] + nrm[1] * LIGHT[1] + nrm[2] * LIGHT[2]) / len;
      ctx.fillStyle = tint(color, 1 + 0.55 * lit - 0.2);
    } else {  /* an ellipsoid: a highlight up and to the left, inside the outline */
      var ca = Math.cos(angle), sa = Math.sin(angle), d = [-0.6, -0.8];
      var lx = (ca * d[0] + sa * d[1]) / Math.max(rx, 0.5);
      var ly = (-sa * d[0] + ca * d[1]) / Math.max(ry, 0.5);
      var reach = 0.45 / Math.hypot(lx, ly);
      var g = ctx.createRadialGradient(c[0] + reach * d[0], c[1] + reach * d[1], 0,
                                       c[0], c[1], Math.max(rx, ry, 1));
      g.addColorStop(0, tint(color, 1.75)); g.addColorStop(0.5, color);
      g.addColorStop(1, tint(color, 0.55));
      ctx.fillStyle = g;
    }
    ctx.beginPath();
    /* at least 2 px across, so that a rod or a plate seen edge-on shows its colour */
    ctx.ellipse(c[0], c[1], Math.max(rx, 2), Math.max(ry, 2), angle, 0, 2 * Math.PI);
    ctx.fill();
    ctx.globalAlpha = 1; ctx.lineWidth = 1.2;
    ctx.strokeStyle = tint(color, Math.min(rx, ry) < 4 ? 0.8 : 0.45); ctx.stroke();
    if (Math.min(rx, ry) < 4) { ctx.restore(); return; }  /* a sliver: no room for rings */
    /* rings fixed in the body: the equator, two latitudes and four meridians */
    var w = V.map(function (v, i) { return -v[2] / Math.pow(b.solid.semi[i], 2); });
    var visible = thin ? function () { return true; } : function (u) {
      return u[0] * w[0] + u[1] * w[1] + u[2] * w[2] > 0;
    };
    var ink = tint(color, 0.35);
    ctx.globalAlpha = 0.7;
    [0, Math.PI / 4, -Math.PI / 4].forEach(function (lat) {
      ring(c, V, s, function (t) {
        return [Math.cos(lat) * Math.cos(t), Math.cos(lat) * Math.sin(t), Math.sin(lat)];
      }, visible, ink);
    });
    [0, 1, 2, 3].forEach(function (j) {
      var lon = j * Math.PI / 4;
      ring(c, V, s, function (t) {
        return [Math.cos(lon) * Math.cos(t), Math.sin(lon) * Math.cos(t), Math.sin(t)];
      }, visible, ink);
    });
    ctx.restore();
  }

  var SEGMENTS = 36;  /* sides of a drawn cylinder */

  function shapeMesh(sh) {  /* vertices and faces (outward normals) in the shape's own axes */
    var d = sh.dims, verts = [], faces = [], j;
    if (sh.kind === "box") {  /* vertex i: bit 0, 1, 2 = the + side along x, y, z */
      for (j = 0; j < 8; j++) {
        verts.push([0, 1, 2].map(function (a) { return (j >> a & 1 ? 0.5 : -0.5) * d[a]; }));
      }
      faces = [[[0, 2, 6, 4], [-1, 0, 0]], [[1, 3, 7, 5], [1, 0, 0]], [[0, 1, 5, 4], [0, -1, 0]],
               [[2, 3, 7, 6], [0, 1, 0]], [[0, 1, 3, 2], [0, 0, -1]], [[4, 5, 7, 6], [0, 0, 1]]]
        .map(function (f) { return { v: f[0], n: f[1] }; });
      return { verts: verts, faces: faces };
    }
    var r = d[0], h = 0.5 * d[1], N = SEGMENTS, ends = [[], []];
    for (j = 0; j < N; j++) {  /* vertex 2j at the -z end, 2j + 1 at the +z end */
      var a = 2 * Math.PI * j / N, m = 2 * Math.PI * (j + 0.5) / N, k = (j + 1) % N;
      verts.push([r * Math.cos(a), r * Math.sin(a), -h], [r * Math.cos(a), r * Math.sin(a), h]);
      faces.push({ v: [2 * j, 2 * k, 2 * k + 1, 2 * j + 1], n: [Math.cos(m), Math.sin(m), 0],
                   side: true });
      ends[0].push(2 * j); ends[1].push(2 * j + 1);
    }
    verts.push([0, 0, -h], [0, 0, h]);  /* the ends' centres: 2N, 2N + 1 */
    [0, 1].forEach(function (e) {
      var rim = [0, N / 3, 2 * N / 3].map(function (q) { return 2 * Math.round(q) + e; });
      faces.push({ v: ends[e], n: [0, 0, e ? 1 : -1], spokes: [2 * N + e, rim] });
    });
    return { verts: verts, faces: faces };
  }

  function drawFace(P, f, lit, color) {
    var fill = tint(color, 0.75 + 0.6 * lit);
    ctx.beginPath();
    f.v.forEach(function (i, j) { if (j) { ctx.lineTo(P[i][0], P[i][1]); } else { ctx.moveTo(P[i][0], P[i][1]); } });
    ctx.closePath();
    ctx.fillStyle = fill; ctx.fill();
    ctx.strokeStyle = f.side ? fill : tint(color, 0.45); ctx.lineWidth = f.side ? 0.7 : 1;
    ctx.stroke();
    if (f.spokes) {
      var c = P[f.spokes[0]];
      var ink = tint(color, lit < 0.35 ? 1.6 : 0.35);  /* against the face's shade */
      f.spokes[1].forEach(function (i) { line(c, P[i], ink, 1.5); });
    }
  }

  function shapeItems(b, sh, color, items) {  /* the faces (a sphere: one ball) to draw */
    var A = b.axes[state.k], p = position(b, state.k), R = sh.rot;
    function inN(v) {  /* body-axes components -> N components */
      return [0, 1, 2].map(function (c) { return v[0] * A[0][c] + v[1] * A[1][c] + v[2] * A[2][c]; });
    }
    var W = R.map(inN), off = inN(sh.off);  /* the shape's axes and centre in N */
    var o = [0, 1, 2].map(function (c) { return p[c] + off[c]; });
    if (sh.kind === "sphere") {
      var r = sh.dims[0], ball = { axes: b.axes, solid: { semi: [r, r, r], rot: R, flat: false } };
      var c = project(o);
      /* at the depth of the middle of its near half, so that what lies inside it is hidden */
      items.push({ depth: c[2] - 0.5 * r, size: r, draw: function () { drawSolid(ball, color, c); } });
      return;
    }
    var mesh = sh.mesh || (sh.mesh = shapeMesh(sh));
    var P = mesh.verts.map(function (s) {
      return project([0, 1, 2].map(function (c) { return o[c] + s[0] * W[0][c] + s[1] * W[1][c] + s[2] * W[2][c]; }));
    });
    mesh.faces.forEach(function (f) {
      var nv = view([0, 1, 2].map(function (c) { return f.n[0] * W[0][c] + f.n[1] * W[1][c] + f.n[2] * W[2][c]; }));
      if (nv[2] >= 0) { return; }  /* turned away from you (or edge-on) */
      var lit = Math.max(0, nv[0] * LIGHT[0] + nv[1] * LIGHT[1] + nv[2] * LIGHT[2]);
      var depth = f.v.reduce(function (sum, i) { return sum + P[i][2]; }, 0) / f.v.length;
      items.push({ depth: depth, size: 0, draw: function () { drawFace(P, f, lit, color); } });
    });
  }

  function drawAxes(b, p, c, L, width) {
    var A = b.axes[state.k];
    for (var i = 0; i < 3; i++) {
      var e = [p[0] + L * A[i][0], p[1] + L * A[i][1], p[2] + L * A[i][2]];
      line(c, project(e), axisColors[i], width);
    }
  }

  function drawBody(b, color, labelRow) {
    var p = position(b, state.k), c = project(p);
    if (b.solid || shaped(b)) {  /* shapes: drawn before, in the painter's order */
      if (b.solid) { drawSolid(b, color, c); }
      if (state.axes) { drawAxes(b, p, c, 1.3 * size(b), 1); }
      ctx.fillStyle = "#1d2330";
      ctx.beginPath(); ctx.arc(c[0], c[1], 2, 0, 2 * Math.PI); ctx.fill();
    } else {
      if (b.axes) { drawAxes(b, p, c, bounds.axis / state.zoom, 2); }  /* as before solids */
      var rad = b.pos ? 6 : 4;  /* a particle: a small ball, the same size at every zoom */
      var g = ctx.createRadialGradient(c[0] - 0.35 * rad, c[1] - 0.4 * rad, 0, c[0], c[1], rad);
      g.addColorStop(0, tint(color, 1.7)); g.addColorStop(1, color);
      ctx.fillStyle = g; ctx.strokeStyle = "#222"; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.arc(c[0], c[1], rad, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    }
    ctx.fillStyle = "#1d2330"; ctx.font = "13px sans-serif";
    ctx.fillText(b.name, c[0] + 9, c[1] - 9 - 15 * labelRow);
    return c;
  }

  function draw3d() {
    state.centre = viewCentre();
    if (data.ground) { drawGround(); }
    drawReference();
    data.bodies.forEach(function (b, i) { drawTrail(b, colors[i % colors.length]); });
    drawLinks();
    var drawn = [], items = [];
    function mark(i) {  /* a body (its solid or dot, axes, label: raised where others are) */
      var c = project(position(data.bodies[i], state.k));
      var row = drawn.filter(function (d) { return Math.hypot(d[0] - c[0], d[1] - c[1]) < 12; }).length;
      drawn.push(drawBody(data.bodies[i], colors[i % colors.length], row));
    }
    data.bodies.forEach(function (b, i) {
      if (shaped(b)) {
        b.shapes.forEach(function (sh) { shapeItems(b, sh, colors[i % colors.length], items); });
      } else {
        items.push({ depth: project(position(b, state.k))[2], size: size(b),
                     draw: function () { mark(i); } });
      }
    });
    items.sort(function (a, b) {  /* far first; at one depth, the larger solid first */
      var d = b.depth - a.depth;
      return Math.abs(d) > 1e-9 * bounds.radius ? d : b.size - a.size;
    });
    items.forEach(function (item) { item.draw(); });
    data.bodies.forEach(function (b, i) { if (shaped(b)) { mark(i); } });  /* on top */
  }

  function drawCursor() {
    var W = canvas.width, H = canvas.height, m = 40;
    var t0 = data.t[0], t1 = data.t[n - 1] > t0 ? data.t[n - 1] : t0 + 1;
    var lo = Infinity, hi = -Infinity;
    data.q.forEach(function (col) { col.forEach(function (v) { lo = Math.min(lo, v); hi = Math.max(hi, v); }); });
    if (!(hi > lo)) { lo -= 1; hi += 1; }
    function X(t) { return m + (W - 2 * m) * (t - t0) / (t1 - t0); }
    function Y(v) { return H - m - (H - 2 * m) * (v - lo) / (hi - lo); }
    line([m, H - m], [W - m, H - m], "#888", 1); line([m, m], [m, H - m], "#888", 1);
    data.q.forEach(function (col, i) {
      ctx.strokeStyle = colors[i % colors.length]; ctx.lineWidth = 1.5; ctx.beginPath();
      col.forEach(function (v, k) { if (k) { ctx.lineTo(X(data.t[k]), Y(v)); } else { ctx.moveTo(X(data.t[k]), Y(v)); } });
      ctx.stroke();
      ctx.fillStyle = colors[i % colors.length]; ctx.font = "12px sans-serif";
      ctx.fillText(data.names[i], W - m + 4, 14 + 14 * i);
    });
    ctx.fillStyle = "#56627a"; ctx.font = "12px sans-serif";
    ctx.fillText(hi.toPrecision(3), 2, m + 4); ctx.fillText(lo.toPrecision(3), 2, H - m);
    ctx.fillText("t = " + t0, m, H - m + 16); ctx.fillText(String(t1), W - m - 20, H - m + 16);
    var x = X(data.t[state.k]);
    line([x, m - 10], [x, H - m], "#d62728", 2);
    data.q.forEach(function (col, i) {
      ctx.fillStyle = colors[i % colors.length];
      ctx.beginPath(); ctx.arc(x, Y(col[state.k]), 4, 0, 2 * Math.PI); ctx.fill();
    });
  }

  function draw() {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    if (n === 0) { return; }
    if (data.mode === "3d") { draw3d(); } else { drawCursor(); }
    label.textContent = "t = " + data.t[state.k].toFixed(3);
    slider.value = String(state.k);
  }

  function tick(now) {
    if (!state.playing) { return; }
    if (state.last !== null) {
      var target = data.t[state.k] + (now - state.last) / 1000;
      while (state.k < n - 1 && data.t[state.k + 1] <= target) { state.k++; }
      if (state.k >= n - 1) { state.playing = false; play.textContent = "Play"; }
    }
    state.last = now;
    draw();
    if (state.playing) { window.requestAnimationFrame(tick); }
  }

  play.addEventListener("click", function () {
    state.playing = !state.playing;
    play.textContent = state.playing ? "Pause" : "Play";
    if (state.playing) {
      if (state.k >= n - 1) { state.k = 0; }
      state.last = null;
      window.requestAnimationFrame(tick);
    }
  });
  slider.addEventListener("input", function () { state.k = Number(slider.value); draw(); });
  document.querySelectorAll("#anim-views button[data-view]").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var v = VIEWS[btn.getAttribute("data-view")];
      state.yaw = v[0]; state.pitch = v[1]; draw();
    });
  });
  var drag = null;
  canvas.addEventListener("mousedown", function (ev) { drag = [ev.clientX, ev.clientY]; });
  window.addEventListener("mouseup", function () { drag = null; });
  window.addEventListener("mousemove", function (ev) {
    if (!drag || data.mode !== "3d") { return; }
    state.yaw += 0.01 * (ev.clientX - drag[0]);
    state.pitch = Math.max(-Math.PI / 2, Math.min(Math.PI / 2, state.pitch + 0.01 * (ev.clientY - drag[1])));
    drag = [ev.clientX, ev.clientY];
    draw();
  });
  canvas.addEventListener("wheel", function (ev) {
    if (data.mode !== "3d") { return; }
    ev.preventDefault();
    state.zoom = Math.max(0.2, Math.min(50, state.zoom * Math.exp(-0.0015 * ev.deltaY)));
    draw();
  }, { passive: false });
  document.getElementById("anim-zoom-in").addEventListener("click", function () {
    state.zoom = Math.min(50, state.zoom * 1.5); draw();
  });
  document.getElementById("anim-zoom-out").addEventListener("click", function () {
    state.zoom = Math.max(0.2, state.zoom / 1.5); draw();
  });
  var follow = document.getElementById("anim-follow"), axes = document.getElementById("anim-axes");
  follow.checked = state.follow; axes.checked = state.axes;
  follow.addEventListener("change", function (ev) { state.follow = ev.target.checked; draw(); });
  axes.addEventListener("change", function (ev) { state.axes = ev.target.checked; draw(); });
  if (data.mode !== "3d") { document.getElementById("anim-views").style.display = "none"; }
  window.kanebondReport = { state: state, draw: draw, frames: n };
  draw();
})();
