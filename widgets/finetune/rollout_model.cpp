// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/rollout_model.h"

#include "widgets/finetune/json_fields.h"
#include "widgets/state/verdict_text.h"

#include <QColor>
#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace dice {

namespace {

using Json = nlohmann::json;

qint64 passesOf(const Json& r) {
    const auto it = r.find("commit_step");
    qint64 last = -1;
    if (it != r.end() && it->is_array())
        for (const auto& s : *it)
            if (s.is_number_integer())
                last = std::max<qint64>(last, s.get<qint64>());
    return last + 1;
}

qint64 tokensOf(const Json& r) {
    const auto it = r.find("tokens");
    return it != r.end() && it->is_array() ? static_cast<qint64>(it->size()) : 0;
}

QString flagsOf(const Json& r) {
    QStringList flags;
    const auto reward = r.find("reward");
    if (reward != r.end() && runjson::flag(*reward, "hack"))
        flags << QCoreApplication::translate("dice::RolloutModel", "hack: %1")
                     .arg(runjson::text(*reward, "hack_reason"));
    const QString finish = runjson::text(r, "finish");
    if (!finish.isEmpty() && finish != QLatin1String("stop"))
        flags << QCoreApplication::translate("dice::RolloutModel", "ended by %1").arg(finish);
    const QString hole = runjson::text(r, "hole");
    if (!hole.isEmpty())
        flags << QCoreApplication::translate("dice::RolloutModel", "hole %1").arg(hole);
    return flags.join(QStringLiteral("; "));
}

} // namespace

RolloutModel::RolloutModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void RolloutModel::setRollouts(std::vector<Json> rollouts) {
    beginResetModel();
    m_rollouts = std::move(rollouts);
    endResetModel();
}

bool RolloutModel::correctOf(const Json& r) {
    // The judge's own word: with the compile reward a kernel that compiled and passed the dry
    // run is correct though it was not run.
    const auto it = r.find("reward");
    return it != r.end() && runjson::flag(*it, "correct");
}

double RolloutModel::rewardOf(const Json& r) {
    const auto it = r.find("reward");
    if (it == r.end())
        return 0.0;
    if (it->is_number())
        return it->get<double>();
    return it->is_object() ? runjson::number(*it, "value") : 0.0;
}

std::pair<int, int> RolloutModel::bestAndWorst(int row) const {
    if (row < 0 || row >= rowCount())
        return {-1, -1};
    const double group = runjson::number(rollout(row), "group");
    int best = -1, worst = -1;
    double high = -std::numeric_limits<double>::infinity();
    double low = std::numeric_limits<double>::infinity();
    for (int i = 0; i < rowCount(); ++i) {
        if (runjson::number(rollout(i), "group") != group)
            continue;
        const double value = rewardOf(rollout(i));
        if (value > high) {
            high = value;
            best = i;
        }
        if (value < low) {
            low = value;
            worst = i;
        }
    }
    return {best, worst};
}

int RolloutModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rollouts.size());
}

int RolloutModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : kColumns;
}

QVariant RolloutModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Json& r = rollout(index.row());
    const bool sort = role == SortRole;
    if (role == Qt::TextAlignmentRole)
        return index.column() == Task || index.column() == Verdict || index.column() == Flags
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == Verdict)
        return correctOf(r) ? QColor(0x1b, 0x7a, 0x3a) : QColor(0xa0, 0x20, 0x20);
    if (role == Qt::ToolTipRole && index.column() == Verdict)
        return runjson::text(r, "message");
    if (role != Qt::DisplayRole && !sort)
        return {};
    switch (index.column()) {
    case Group:
        return static_cast<qint64>(runjson::number(r, "group"));
    case Task:
        return runjson::text(r, "task");
    case Level:
        return static_cast<qint64>(runjson::number(r, "level"));
    case Reward:
        return sort ? QVariant(rewardOf(r)) : QVariant(QString::number(rewardOf(r), 'f', 3));
    case Advantage:
        return sort ? QVariant(runjson::number(r, "advantage"))
                    : QVariant(QString::number(runjson::number(r, "advantage"), 'f', 3));
    case Verdict:
        return verdictText(runjson::text(r, "verdict"));
    case Flags:
        return flagsOf(r);
    case Tokens:
        return tokensOf(r);
    case Passes:
        return passesOf(r);
    case Kept: {
        const auto it = r.find("kept");
        const bool kept = it != r.end() && it->is_boolean() && it->get<bool>();
        return sort ? QVariant(kept ? 1 : 0) : QVariant(kept ? tr("yes") : tr("no"));
    }
    default:
        return {};
    }
}

QVariant RolloutModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Group:
        return tr("Group");
    case Task:
        return tr("Task");
    case Level:
        return tr("Level");
    case Reward:
        return tr("Reward");
    case Advantage:
        return tr("Advantage");
    case Verdict:
        return tr("Verdict");
    case Flags:
        return tr("Flags");
    case Tokens:
        return tr("Tokens");
    case Passes:
        return tr("Passes");
    case Kept:
        return tr("Kept");
    default:
        return {};
    }
}

} // namespace dice
