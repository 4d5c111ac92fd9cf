// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of tensor-persistent: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "families/tensor_tma/tensor_tma.hpp"

namespace tilescope::maps {

// tensor-persistent (issue 13, the Hopper plan's steps 4 and 6; fast.cu kernels 6 and 8, CUTLASS's
// persistent tile scheduler): tensor-tma's block, launched once per SM, each block looping over
// output tiles. Every diagram's "block" stays one BM x BN tile of C (grid(), owner(), the copies
// and the pipeline are tensor-tma's); what this map adds is the launch and the tile order:
//   - The launch is launchedCtas() blocks, at most residentCtas (the blocks the GPU holds at
//     once: one per SM), in thread-block clusters of `cluster` x 1 blocks: as few clusters as
//     work all units in as many rounds as every cluster would (balancedClusters).
//   - A cluster takes `cluster` vertically adjacent tiles at once (a unit: the same columns of B,
//     consecutive rows of A). Its blocks share B's tile: each block's producer loads 1/cluster of
//     B's slabs and the copy engine multicasts them into every block of the cluster, so B crosses
//     L2 once per unit. A block then waits for its own and its partners' consumers to free a
//     stage before refilling it (their `empty` arrivals come to every block of the cluster).
//   - The units are numbered in a grouped order: bands of `group` tile rows, each band walked
//     column by column, down the band's rows first, so the blocks working at one time share
//     a few columns of B and rows of A in L2 (a row-by-row order rereads all of B every row).
//   - Cluster c takes units c, c + clusters, c + 2 clusters, ...: unit c + r clusters in round r.
//     Block `rank` of the cluster computes tile row unitRow * cluster + rank of its unit.
// The stage ring runs on across tiles: the producer fills the next tile's k-steps while the
// consumers still multiply (or store) this one, and the ring's phases carry over.
template <typename Self>
struct PersistentOrder : WarpSpecialised<Self> {
  using LadderBase<Self>::bm;
  using LadderBase<Self>::bn;
  int cluster = 1;  // blocks per thread-block cluster, along M
  int group = 8;    // tile rows per band of the tile order
  int residentCtas = kDefaultResidentCtas;

  // An H100's or H200's SMs: what the diagrams assume until a GPU says (the launch asks CUDA how
  // many clusters fit and builds its map withResidentCtas()).
  static constexpr int kDefaultResidentCtas = 132;
  TS_HDC Self withResidentCtas(int ctas) const {
    Self map = this->self();
    map.residentCtas = ctas;
    return map;
  }
  // Tile counts fit in an int (C would hold more than 2^45 floats otherwise), and int division
  // keeps the producer, which computes the order on 40 registers, from spilling.
  TS_HDC int tilesAlongM(std::int64_t m) const { return int(ceilDiv(m, bm)); }
  TS_HDC int tilesAlongN(std::int64_t n) const { return int(ceilDiv(n, bn)); }
  // Units: `cluster` tiles stacked along M (the last unit row may reach past M: a block whose
  // tile lies there still copies its share of B for its partners, and stores nothing).
  TS_HDC int unitRows(std::int64_t m) const { return (tilesAlongM(m) + cluster - 1) / cluster; }
  TS_HDC int units(std::int64_t m, std::int64_t n) const { return unitRows(m) * tilesAlongN(n); }
  TS_HDC int clusters(std::int64_t m, std::int64_t n) const {
    return balancedClusters(units(m, n), residentCtas / cluster > 0 ? residentCtas / cluster : 1);
  }
  TS_HDC int launchedCtas(std::int64_t m, std::int64_t n) const { return clusters(m, n) * cluster; }
  TS_HDC Dim2 launchGrid(std::int64_t m, std::int64_t n) const { return {launchedCtas(m, n), 1}; }
  TS_HDC Dim2 clusterShape() const { return {cluster, 1}; }
  // A cluster multicasts B only when TMA copies both operands: rows that are not 16-byte aligned
  // are copied by each block's producer threads, each block its own.
  TS_HDC bool multicastsB(std::int64_t k, std::int64_t n) const {
    return cluster > 1 && this->self().aVectorCopies(k) && this->self().bVectorCopies(n);
  }
  TS_HDC int rounds(std::int64_t m, std::int64_t n) const {
    return (units(m, n) + clusters(m, n) - 1) / clusters(m, n);
  }

  // The grouped order: unit u as {x: tile column, y: unit row}, and back.
  TS_HDC int bandUnitRows() const { return group / cluster; }
  TS_HDC Dim2 unitAt(int u, std::int64_t m, std::int64_t n) const {
    const int perBand = bandUnitRows() * tilesAlongN(n);
    const int first = u / perBand * bandUnitRows(), inBand = u % perBand;
    const int left = unitRows(m) - first;
    const int rows = left < bandUnitRows() ? left : bandUnitRows();
    return {inBand / rows, first + inBand % rows};
  }
  TS_HDC int unitOf(Dim2 unit, std::int64_t m, std::int64_t n) const {
    const int first = unit.y / bandUnitRows() * bandUnitRows();
    const int left = unitRows(m) - first;
    const int rows = left < bandUnitRows() ? left : bandUnitRows();
    return first * tilesAlongN(n) + unit.x * rows + (unit.y - first);
  }
  // The tile (a block of grid()) launched block `cta` computes in `round`; its y may lie past
  // the last tile row (see units). Valid while round < roundsOf(cta).
  TS_HDC Dim2 tileAt(int cta, int round, std::int64_t m, std::int64_t n) const {
    const Dim2 unit = unitAt(cta / cluster + round * clusters(m, n), m, n);
    return {unit.x, unit.y * cluster + cta % cluster};
  }
  TS_HDC int roundsOf(int cta, std::int64_t m, std::int64_t n) const {
    return (units(m, n) - cta / cluster + clusters(m, n) - 1) / clusters(m, n);
  }
  // The inverse: which launched block computes a tile, and in which round.
  TS_HDC int ctaOf(Dim2 tile, std::int64_t m, std::int64_t n) const {
    const int u = unitOf({tile.x, tile.y / cluster}, m, n);
    return u % clusters(m, n) * cluster + tile.y % cluster;
  }
  TS_HDC int roundOf(Dim2 tile, std::int64_t m, std::int64_t n) const {
    return unitOf({tile.x, tile.y / cluster}, m, n) / clusters(m, n);
  }
};

struct Persistent : PersistentOrder<Persistent> {
  static constexpr std::array<ParamAxis, 6> kAxes = {{{"BM", {128}, 1},
                                                      {"BN", {128, 256}, 2},
                                                      {"BK", {64}, 1},
                                                      {"stages", {4, 6}, 2},
                                                      {"cluster", {1, 2}, 2},
                                                      {"group", {8, 16}, 2}}};
  static constexpr Persistent fromValues(const std::array<int, 6>& v) {
    return {{{{v[0], v[1], v[2]}, v[3]}, v[4], v[5]}};
  }
  constexpr std::array<int, 6> values() const { return {bm, bn, bk, stages, cluster, group}; }
};

}  // namespace tilescope::maps

namespace tilescope::families::tensor_persistent {
using Map = maps::Persistent;
}  // namespace tilescope::families::tensor_persistent
