// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/profile/trial_model.h"

#include <QColor>

namespace dice {

TrialModel::TrialModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void TrialModel::setTrials(const std::vector<TrialResult>& trials) {
    beginResetModel();
    m_trials = trials;
    endResetModel();
}

void TrialModel::clear() {
    setTrials({});
}

int TrialModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_trials.size());
}

int TrialModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TrialModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TrialResult& t = m_trials[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case TrialColumn:
            return QString::number(t.trial);
        case PassedColumn:
            return t.passed ? tr("yes") : tr("no");
        case AbsErrorColumn:
            return QString::number(t.maxAbsError, 'g', 3);
        case RelErrorColumn:
            return QString::number(t.maxRelError, 'g', 3);
        case DetailColumn:
            return QString::fromStdString(t.detail);
        }
        return {};
    case Qt::ToolTipRole:
        // What the three digits of the table leave out: the seed that reproduces the trial's
        // inputs, the errors in full, the whole of a long detail.
        switch (index.column()) {
        case TrialColumn:
            return tr("Seed %1").arg(t.seed);
        case AbsErrorColumn:
            return QString::number(t.maxAbsError, 'g', 17);
        case RelErrorColumn:
            return QString::number(t.maxRelError, 'g', 17);
        case DetailColumn:
            return QString::fromStdString(t.detail);
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() != PassedColumn)
            return {};
        return t.passed ? QColor(0x20, 0x80, 0x30) : QColor(0xc0, 0x20, 0x20);
    case SortRole:
        switch (index.column()) {
        case TrialColumn:
            return t.trial;
        case PassedColumn:
            return t.passed ? 1 : 0;
        case AbsErrorColumn:
            return t.maxAbsError;
        case RelErrorColumn:
            return t.maxRelError;
        case DetailColumn:
            return QString::fromStdString(t.detail);
        }
        return {};
    default:
        return {};
    }
}

QVariant TrialModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TrialColumn:
        return tr("Trial");
    case PassedColumn:
        return tr("Passed");
    case AbsErrorColumn:
        return tr("Largest abs. error");
    case RelErrorColumn:
        return tr("Largest rel. error");
    case DetailColumn:
        return tr("Detail");
    }
    return {};
}

} // namespace dice
