/* kanebond's 3D view (WebGL through the vendored three.js, the global THREE): the bodies of a
   run as lit solids moving over time, with a time slider, play, views, zoom, follow, frame axes,
   trails, the links between bodies, a ground grid and the inertial axes at O.

   Reads its data from the JSON element #anim-data (kanebond.report.animation.animation_data):
   per body its mass centre `pos[k]` and frame axes `axes[k]` (axes[k][i]: the body's unit
   vector i in N components) at every sample, once its `solid` (semi-axes `semi` along the rows
   of `rot`, in body axes; `flat`: a plate) or its primitive `shapes` (kind box | cylinder |
   sphere | torus, `dims`, rows of `rot` = the shape's axes and `off` = its centre from the mass centre,
   in body axes; a cylinder's and a torus's axis is its z) or `meshes` (triangles: `v` vertices and `f` faces
   in the shape's axes, `rot`, `off`, `color`). Where no body can be placed (mode "cursor"), or
   the browser gives no WebGL, a cursor runs over the coordinates' curves instead. No network.
   window.kanebondReport = {state, draw, frames, frameTime} is the page's hook for tests. */
(function () {
  "use strict";
  var root = document.currentScript ? document.currentScript.closest(".kb-view") : null;
  function el(id) {
    return root ? root.querySelector("[data-kb='" + id + "']") : document.getElementById(id);
  }
  var data = JSON.parse(el("anim-data").textContent);
  var canvas = el("anim-canvas"), slider = el("anim-slider"), label = el("anim-time");
  var play = el("anim-play"), labels = el("anim-labels"), views = el("anim-views");
  var COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  var AXIS_COLORS = ["#d62728", "#2ca02c", "#1f77b4"];
  var n = data.t.length;
  function shaped(b) { return !!((b.shapes && b.shapes.length) || (b.meshes && b.meshes.length)); }
  var hasSolids = data.bodies.some(function (b) { return !!b.solid || shaped(b); });
  var state = { k: 0, yaw: -0.6, pitch: 0.45, playing: false, last: null, zoom: 1,
                follow: false, axes: !hasSolids, trails: true,
                names: data.bodies.length <= 12 };  /* a robot's many names would hide it */
  slider.max = String(Math.max(n - 1, 0));
  var VIEWS = { iso: [-0.6, 0.45], xy: [0, Math.PI / 2], xz: [0, 0], yz: [-Math.PI / 2, 0] };

  /* ------------------------------------------------------------------ sizes of the scene */
  function position(b, k) { return b.pos ? b.pos[k] : [0, 0, 0]; }
  function extent(sh) {  /* the farthest a shape reaches from its centre */
    var d = sh.dims;
    if (sh.kind === "box") { return 0.5 * Math.hypot(d[0], d[1], d[2]); }
    if (sh.kind === "cylinder") { return Math.hypot(d[0], 0.5 * d[1]); }
    if (sh.kind === "torus") { return d[0] + d[1]; }
    return d[0];
  }
  function size(b) {  /* the farthest the drawn body reaches from its mass centre */
    var parts = (b.shapes || []).concat(b.meshes || []);
    if (parts.length) {
      return Math.max.apply(null, parts.map(function (sh) {
        return Math.hypot(sh.off[0], sh.off[1], sh.off[2]) + (sh.kind ? extent(sh) : sh.reach);
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
    var reach = Math.hypot(centre[0], centre[1], centre[2]);
    data.bodies.forEach(function (b) {
      for (var k = 0; k < n; k++) {
        var p = position(b, k);
        reach = Math.max(reach, size(b) + Math.hypot(p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]));
      }
    });
    var axis = reach > 1e-9 ? 0.3 * reach : 1.0;
    return { centre: centre, axis: axis, radius: 1.1 * Math.max(reach, axis) };
  }
  function centroid(k) {
    var sum = [0, 0, 0], count = 0;
    data.bodies.forEach(function (b) {
      if (b.pos) { for (var i = 0; i < 3; i++) { sum[i] += b.pos[k][i]; } count++; }
    });
    return count ? sum.map(function (v) { return v / count; }) : null;
  }
  function clusterRadius() {  /* how far the bodies reach from their centroid, at the most */
    var most = 0;
    for (var k = 0; k < n; k++) {
      var c = centroid(k);
      if (!c) { return 0; }
      data.bodies.forEach(function (b) {
        if (b.pos) {
          var p = b.pos[k];
          most = Math.max(most, size(b) + Math.hypot(p[0] - c[0], p[1] - c[1], p[2] - c[2]));
        }
      });
    }
    return most;
  }
  function flatScene() {  /* every mass centre in the plane N.xy: look from above */
    var z = 0, spread = 0;
    data.bodies.forEach(function (b) {
      (b.pos || []).forEach(function (p) {
        z = Math.max(z, Math.abs(p[2])); spread = Math.max(spread, Math.abs(p[0]), Math.abs(p[1]));
      });
    });
    return z < 1e-9 && spread > 1e-9;
  }

  /* ------------------------------------------------------------------ the cursor (2D) */
  function cursorView(note) {
    var ctx = canvas.getContext("2d");
    if (views) { views.style.display = "none"; }
    if (note) {
      var p = document.createElement("p");
      p.className = "note"; p.textContent = note;
      canvas.parentNode.parentNode.insertBefore(p, canvas.parentNode);
    }
    function line(a, b, color, width) {
      ctx.strokeStyle = color; ctx.lineWidth = width;
      ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.stroke();
    }
    return function draw() {
      var W = canvas.width, H = canvas.height, m = 40;
      ctx.clearRect(0, 0, W, H);
      if (!n) { return; }
      var t0 = data.t[0], t1 = data.t[n - 1] > t0 ? data.t[n - 1] : t0 + 1;
      var lo = Infinity, hi = -Infinity;
      data.q.forEach(function (col) { col.forEach(function (v) { lo = Math.min(lo, v); hi = Math.max(hi, v); }); });
      if (!(hi > lo)) { lo -= 1; hi += 1; }
      function X(t) { return m + (W - 2 * m) * (t - t0) / (t1 - t0); }
      function Y(v) { return H - m - (H - 2 * m) * (v - lo) / (hi - lo); }
      line([m, H - m], [W - m, H - m], "#888", 1); line([m, m], [m, H - m], "#888", 1);
      data.q.forEach(function (col, i) {
        ctx.strokeStyle = COLORS[i % COLORS.length]; ctx.lineWidth = 1.5; ctx.beginPath();
        col.forEach(function (v, k) { if (k) { ctx.lineTo(X(data.t[k]), Y(v)); } else { ctx.moveTo(X(data.t[k]), Y(v)); } });
        ctx.stroke();
        ctx.fillStyle = COLORS[i % COLORS.length]; ctx.font = "12px sans-serif";
        ctx.fillText(data.names[i], W - m + 4, 14 + 14 * i);
      });
      ctx.fillStyle = "#56627a"; ctx.font = "12px sans-serif";
      ctx.fillText(hi.toPrecision(3), 2, m + 4); ctx.fillText(lo.toPrecision(3), 2, H - m);
      ctx.fillText("t = " + t0, m, H - m + 16); ctx.fillText(String(t1), W - m - 20, H - m + 16);
      var x = X(data.t[state.k]);
      line([x, m - 10], [x, H - m], "#d62728", 2);
      data.q.forEach(function (col, i) {
        ctx.fillStyle = COLORS[i % COLORS.length];
        ctx.beginPath(); ctx.arc(x, Y(col[state.k]), 4, 0, 2 * Math.PI); ctx.fill();
      });
    };
  }

  /* ------------------------------------------------------------------ the 3D view */
  function webglView() {
    var T = window.THREE;
    var renderer = new T.WebGLRenderer({ canvas: canvas, antialias: true,
                                         preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    renderer.setSize(canvas.width, canvas.height, false);
    renderer.setClearColor(0xfcfcfd, 1);
    var bounds = sceneBounds();
    var scene = new T.Scene();
    var world = new T.Group();  /* N: z up, or turned half a turn about N.x when N.z is down */
    if (data.up === -1) { world.rotation.x = Math.PI; }
    scene.add(world);
    scene.add(new T.HemisphereLight(0xffffff, 0xa0a4ab, 1.9));
    var sun = new T.DirectionalLight(0xffffff, 1.9);  /* over the viewer's left shoulder */
    var lamp = new T.DirectionalLight(0xffffff, 0.7);  /* from the viewer: no face goes black */
    [sun, lamp].forEach(function (l) { scene.add(l); scene.add(l.target); });
    var camera = new T.PerspectiveCamera(35, canvas.width / canvas.height, 1e-3, 1e3);
    if (flatScene()) { state.yaw = VIEWS.xy[0]; state.pitch = VIEWS.xy[1]; }
    if (hasSolids) {  /* solids that travel further than their own size: follow them */
      var cluster = clusterRadius(), travel = 0;
      for (var k = 0; k < n; k++) {
        var c = centroid(k);
        if (c) { travel = Math.max(travel, Math.hypot(c[0] - bounds.centre[0], c[1] - bounds.centre[1], c[2] - bounds.centre[2])); }
      }
      if (cluster > 0 && travel > cluster) {
        state.follow = true;
        state.zoom = Math.max(1, Math.min(50, 0.5 * bounds.radius / cluster));
      }
    }
    /* trails where bodies travel (or are points); a mechanism turning in place would tangle */
    state.trails = !hasSolids || state.follow;

    function material(color) {
      return new T.MeshStandardMaterial({ color: color, roughness: 0.55, metalness: 0.05,
                                          vertexColors: true, side: T.DoubleSide });
    }
    function sectors(geometry, axis) {  /* alternate shades around ``axis``, so spin shows */
      var p = geometry.attributes.position, c = [];
      for (var i = 0; i < p.count; i++) {
        var a = axis === "y" ? Math.atan2(p.getZ(i), p.getX(i)) : Math.atan2(p.getY(i), p.getX(i));
        var s = Math.floor(((a + 2 * Math.PI) % (2 * Math.PI)) / (Math.PI / 2)) % 2 ? 0.62 : 1.0;
        c.push(s, s, s);
      }
      geometry.setAttribute("color", new T.Float32BufferAttribute(c, 3));
      return geometry;
    }
    function plain(geometry) {
      var c = new Float32Array(3 * geometry.attributes.position.count).fill(1);
      geometry.setAttribute("color", new T.BufferAttribute(c, 3));
      return geometry;
    }
    function placed(mesh, cols, off) {  /* columns: the mesh's local x, y, z in body axes */
      var m = new T.Matrix4();
      m.set(cols[0][0], cols[1][0], cols[2][0], off[0],
            cols[0][1], cols[1][1], cols[2][1], off[1],
            cols[0][2], cols[1][2], cols[2][2], off[2], 0, 0, 0, 1);
      mesh.matrixAutoUpdate = false;
      mesh.matrix.copy(m);
      return mesh;
    }
    function scaled(v, s) { return [v[0] * s, v[1] * s, v[2] * s]; }
    function neg(v) { return [-v[0], -v[1], -v[2]]; }
    function outline(mesh) {
      var lines = new T.LineSegments(new T.EdgesGeometry(mesh.geometry, 30),
                                     new T.LineBasicMaterial({ color: 0x1d2330, transparent: true, opacity: 0.35 }));
      mesh.add(lines);
      return mesh;
    }
    function solidMesh(b, color) {
      var s = b.solid, R = s.rot;
      if (s.flat && s.semi[1] <= 0.05 * s.semi[0]) {  /* a rod: a bar along R[0], seen */
        var r = Math.max(s.semi[1], 0.04 * s.semi[0]);
        var bar = new T.Mesh(plain(new T.CylinderGeometry(r, r, 2 * s.semi[0], 16)), material(color));
        return placed(bar, [R[1], R[0], neg(R[2])], [0, 0, 0]);  /* three's y: the rod's axis */
      }
      if (s.flat) {  /* a plate: a flat disc, its normal R[2] */
        var disc = new T.Mesh(sectors(new T.CylinderGeometry(1, 1, 1, 48), "y"), material(color));
        var t = Math.max(s.semi[2], 0.02 * s.semi[0]);
        return outline(placed(disc, [scaled(R[0], s.semi[0]), scaled(R[2], t), scaled(neg(R[1]), s.semi[1])], [0, 0, 0]));
      }
      var ball = new T.Mesh(sectors(new T.SphereGeometry(1, 40, 24), "z"), material(color));
      return placed(ball, [scaled(R[0], s.semi[0]), scaled(R[1], s.semi[1]), scaled(R[2], s.semi[2])], [0, 0, 0]);
    }
    function shapeMesh(sh, color) {
      var R = sh.rot, d = sh.dims;
      if (sh.kind === "box") {
        return outline(placed(new T.Mesh(plain(new T.BoxGeometry(d[0], d[1], d[2])), material(color)), R, sh.off));
      }
      if (sh.kind === "cylinder") {  /* three's cylinder runs along its y: the shape's z */
        var cyl = new T.Mesh(sectors(new T.CylinderGeometry(d[0], d[0], d[1], 40), "y"), material(color));
        return outline(placed(cyl, [R[0], R[2], neg(R[1])], sh.off));
      }
      if (sh.kind === "torus") {  /* three's torus lies around its z, as the shape's */
        return placed(new T.Mesh(sectors(new T.TorusGeometry(d[0], d[1], 16, 64), "z"), material(color)), R, sh.off);
      }
      return placed(new T.Mesh(sectors(new T.SphereGeometry(d[0], 32, 20), "z"), material(color)), R, sh.off);
    }
    function meshMesh(m, color) {  /* a triangle mesh (a URDF's visual), in the shape's axes */
      var g = new T.BufferGeometry();
      g.setAttribute("position", new T.Float32BufferAttribute(m.v, 3));
      g.setIndex(m.f);
      g.computeVertexNormals();
      return placed(new T.Mesh(plain(g), material(m.color || color)), m.rot, m.off);
    }
    function axesLines(length) {
      var g = new T.Group();
      for (var i = 0; i < 3; i++) {
        var e = [0, 0, 0]; e[i] = length;
        var geo = new T.BufferGeometry();
        geo.setAttribute("position", new T.Float32BufferAttribute([0, 0, 0].concat(e), 3));
        g.add(new T.Line(geo, new T.LineBasicMaterial({ color: AXIS_COLORS[i] })));
      }
      return g;
    }

    /* the inertial axes at O, and the ground */
    world.add(axesLines(bounds.axis));
    var grid = null;
    if (data.ground) {
      var step = Math.pow(10, Math.floor(Math.log10(bounds.radius / 3)));
      var cells = 2 * Math.ceil(1.6 * bounds.radius / step);
      grid = new T.GridHelper(cells * step, cells, 0xb8bfcc, 0xdde1e7);
      grid.rotation.x = Math.PI / 2;  /* three's grid lies in its x-z plane: N.xy here */
      grid.userData.step = step;
      world.add(grid);
    }

    /* the bodies: a group per body placed at every sample, its solid, shapes or meshes */
    var groups = data.bodies.map(function (b, i) {
      var color = COLORS[i % COLORS.length], g = new T.Group();
      g.matrixAutoUpdate = false;
      if (b.meshes && b.meshes.length) {
        b.meshes.forEach(function (m) { g.add(meshMesh(m, color)); });
      }
      if (b.shapes && b.shapes.length) {
        b.shapes.forEach(function (sh) { g.add(shapeMesh(sh, color)); });
      } else if (b.solid && !(b.meshes && b.meshes.length)) {
        g.add(solidMesh(b, color));
      } else if (!shaped(b)) {  /* a particle, or a frame alone: a small ball */
        g.add(new T.Mesh(plain(new T.SphereGeometry(0.018 * bounds.radius, 20, 12)), material(color)));
      }
      var ax = axesLines(hasSolids && size(b) > 0 ? 1.3 * size(b) : 0.5 * bounds.axis);
      ax.visible = state.axes;
      g.add(ax);
      g.userData.axes = ax;
      world.add(g);
      return g;
    });
    var TRAIL = Math.max(20, Math.min(120, Math.round(n / 4)));
    var trails = data.bodies.map(function (b, i) {
      if (!b.pos) { return null; }
      var geo = new T.BufferGeometry();
      geo.setAttribute("position", new T.Float32BufferAttribute([].concat.apply([], b.pos), 3));
      var line = new T.Line(geo, new T.LineBasicMaterial({ color: COLORS[i % COLORS.length], transparent: true, opacity: 0.55 }));
      world.add(line);
      return line;
    });
    var links = null;
    if ((data.links || []).length) {
      var lg = new T.BufferGeometry();
      lg.setAttribute("position", new T.Float32BufferAttribute(new Float32Array(6 * data.links.length), 3));
      links = new T.LineSegments(lg, new T.LineBasicMaterial({ color: 0x56627a }));
      world.add(links);
    }
    var tags = data.bodies.map(function (b) {
      var s = document.createElement("span");
      s.textContent = b.name;
      labels.appendChild(s);
      return s;
    });

    function place(k) {
      var m = new T.Matrix4();
      data.bodies.forEach(function (b, i) {
        var p = position(b, k), A = b.axes ? b.axes[k] : [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
        m.set(A[0][0], A[1][0], A[2][0], p[0], A[0][1], A[1][1], A[2][1], p[1],
              A[0][2], A[1][2], A[2][2], p[2], 0, 0, 0, 1);
        groups[i].matrix.copy(m);
        groups[i].matrixWorldNeedsUpdate = true;
        groups[i].userData.axes.visible = state.axes;
        if (trails[i]) {  /* the last stretch of the path: a long run's loops would tangle */
          var from = Math.max(0, k - TRAIL);
          trails[i].geometry.setDrawRange(from, k + 1 - from);
          trails[i].visible = state.trails;
        }
      });
      if (links) {
        var a = links.geometry.attributes.position;
        data.links.forEach(function (pair, j) {
          [0, 1].forEach(function (e) {
            var p = pair[e] < 0 ? [0, 0, 0] : position(data.bodies[pair[e]], k);
            a.setXYZ(2 * j + e, p[0], p[1], p[2]);
          });
        });
        a.needsUpdate = true;
      }
    }
    function aim() {  /* the camera from yaw, pitch, zoom, and the centre it looks at */
      var c = (state.follow && centroid(state.k)) || bounds.centre;
      var centre = new T.Vector3(c[0], c[1], c[2]).applyMatrix4(world.matrixWorld);
      if (grid) {  /* the grid follows the view in whole cells, so it seems to stand still */
        var s = grid.userData.step;
        grid.position.set(Math.round(c[0] / s) * s, Math.round(c[1] / s) * s, 0);
      }
      var sa = Math.sin(state.yaw), ca = Math.cos(state.yaw);
      var se = Math.sin(state.pitch), ce = Math.cos(state.pitch);
      var eye = new T.Vector3(-sa * ce, -ca * ce, se), up = new T.Vector3(sa * se, ca * se, ce);
      var dist = bounds.radius / Math.sin(camera.fov * Math.PI / 360) / state.zoom;
      camera.position.copy(centre).addScaledVector(eye, dist);
      camera.up.copy(up);
      camera.near = Math.max(dist - 4 * bounds.radius, dist * 1e-3);
      camera.far = dist + 4 * bounds.radius;
      camera.lookAt(centre);
      camera.updateProjectionMatrix();
      /* the light from above the viewer's left shoulder, onto the centre */
      sun.position.copy(camera.position).addScaledVector(up, 0.8 * dist)
        .addScaledVector(new T.Vector3(ca, -sa, 0), -0.5 * dist);
      lamp.position.copy(camera.position);
      [sun, lamp].forEach(function (l) { l.target.position.copy(centre); l.target.updateMatrixWorld(); });
    }
    function tagAll() {
      var w = canvas.clientWidth || canvas.width, h = canvas.clientHeight || canvas.height;
      var v = new T.Vector3(), rows = [];
      data.bodies.forEach(function (b, i) {
        v.setFromMatrixPosition(groups[i].matrixWorld).project(camera);
        var x = (v.x + 1) / 2 * w, y = (1 - v.y) / 2 * h;
        var row = rows.filter(function (r) { return Math.hypot(r[0] - x, r[1] - y) < 12; }).length;
        rows.push([x, y]);
        var on = v.z < 1 && x > -20 && x < w + 20 && y > -20 && y < h + 20;
        tags[i].style.display = on && state.names ? "" : "none";
        tags[i].style.transform = "translate(" + (x + 9) + "px," + (y - 22 - 15 * row) + "px)";
      });
    }
    return function draw() {
      world.updateMatrixWorld(true);
      place(state.k);
      aim();
      scene.updateMatrixWorld(true);
      renderer.render(scene, camera);
      tagAll();
    };
  }

  /* ------------------------------------------------------------------ the page's controls */
  var render, note = "";
  if (data.mode === "3d") {
    try {
      if (!window.THREE) { throw new Error("three.js is missing"); }
      render = webglView();
    } catch (err) {
      note = "This browser gave no WebGL (" + err.message + "): the bodies cannot be drawn " +
             "here, so a cursor runs over the coordinates instead.";
      var fresh = canvas.cloneNode(false);  /* a canvas that asked for WebGL gives no 2D */
      canvas.parentNode.replaceChild(fresh, canvas);
      canvas = fresh;
      data.mode = "cursor";
    }
  }
  if (data.mode !== "3d") { render = cursorView(note); }
  function draw() {
    if (!n) { return; }
    render();
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
  if (views) {
    views.querySelectorAll("button[data-view]").forEach(function (btn) {
      btn.addEventListener("click", function () {
        var v = VIEWS[btn.getAttribute("data-view")];
        state.yaw = v[0]; state.pitch = v[1]; draw();
      });
    });
  }
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
  function button(id, f) { var b = el(id); if (b) { b.addEventListener("click", function () { f(); draw(); }); } }
  button("anim-zoom-in", function () { state.zoom = Math.min(50, state.zoom * 1.5); });
  button("anim-zoom-out", function () { state.zoom = Math.max(0.2, state.zoom / 1.5); });
  [["anim-follow", "follow"], ["anim-axes", "axes"], ["anim-trails", "trails"],
   ["anim-names", "names"]].forEach(function (pair) {
    var box = el(pair[0]);
    if (!box) { return; }
    box.checked = state[pair[1]];
    box.addEventListener("change", function (ev) { state[pair[1]] = ev.target.checked; draw(); });
  });
  function frameTime(frames) {  /* ms per drawn frame over ``frames`` samples (a test's probe) */
    var k0 = state.k, t0 = performance.now();
    for (var i = 0; i < frames; i++) { state.k = i % Math.max(n, 1); draw(); }
    var gl = canvas.getContext("webgl2") || canvas.getContext("webgl");
    if (gl && gl.finish) { gl.finish(); }
    var ms = (performance.now() - t0) / frames;
    state.k = k0; draw();
    return ms;
  }
  var hook = { state: state, draw: draw, frames: n, frameTime: frameTime, mode: data.mode };
  if (root) { root.kanebondView = hook; } else { window.kanebondReport = hook; }
  draw();
})();
