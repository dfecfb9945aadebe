// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/evaluation.h"

#include <QAbstractTableModel>

#include <vector>

namespace dice {

// An evaluation's correctness trials, one row each in the evaluator's order. Columns: trial,
// passed, largest absolute error, largest relative error, detail.
class TrialModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        TrialColumn,
        PassedColumn,
        AbsErrorColumn,
        RelErrorColumn,
        DetailColumn,
        ColumnCount
    };
    // Numbers as numbers (the errors at full precision), for a sorting proxy.
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit TrialModel(QObject* parent = nullptr);

    void setTrials(const std::vector<TrialResult>& trials);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<TrialResult> m_trials;
};

} // namespace dice
