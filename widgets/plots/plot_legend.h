// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCustomPlot;

namespace dice {

// Puts the plot's legend in a row of its own above the axes, its entries side by side, so that
// it never covers a curve (QCustomPlot draws it inside the axes by default).
void placeLegendAbove(QCustomPlot* plot);

} // namespace dice
